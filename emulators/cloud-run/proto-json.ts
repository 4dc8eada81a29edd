import protobuf from 'protobufjs';

type Message = Record<string, unknown>;
type SecondsAndNanos = { seconds?: string | number; nanos?: number };

const lowerCamel = (name: string) =>
  name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const totalSeconds = (value: SecondsAndNanos) =>
  Number(value.seconds ?? 0) + (value.nanos ?? 0) / 1e9;

/**
 * A message as the proto3 JSON mapping writes it (https://protobuf.dev/programming-guides/json/),
 * which Google's REST surfaces answer with: lowerCamelCase field names, a Timestamp as an RFC 3339
 * string, a Duration as seconds with an `s`, enums by name, int64 as a string. `value` is the
 * message as the emulators build it for grpc-js (.proto names, Timestamps as seconds and nanos).
 */
export function protoJson(type: protobuf.Type, value: Message): Message {
  const out: Message = {};
  for (const [key, fieldValue] of Object.entries(value)) {
    const field = type.fields[key];
    if (!field || fieldValue === undefined || fieldValue === null) continue;
    field.resolve();
    const resolved = field.resolvedType;
    const convert = (item: unknown): unknown => {
      if (!(resolved instanceof protobuf.Type) || typeof item !== 'object' || item === null)
        return item;
      if (resolved.fullName === '.google.protobuf.Timestamp')
        return new Date(totalSeconds(item as SecondsAndNanos) * 1000).toISOString();
      if (resolved.fullName === '.google.protobuf.Duration')
        return `${totalSeconds(item as SecondsAndNanos)}s`;
      return protoJson(resolved, item as Message);
    };
    out[lowerCamel(key)] = Array.isArray(fieldValue)
      ? fieldValue.map(convert)
      : field.map
        ? Object.fromEntries(Object.entries(fieldValue as Message).map(([k, v]) => [k, convert(v)]))
        : convert(fieldValue);
  }
  return out;
}
