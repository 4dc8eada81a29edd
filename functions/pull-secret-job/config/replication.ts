/** Replication of a new secret: Google-chosen locations, or the user's list. */
export type Replication =
  | { readonly kind: 'automatic'; readonly kmsKeyName?: string }
  | {
      readonly kind: 'user-managed';
      readonly locations: readonly string[];
      readonly kmsKeyName?: string;
    };
