// The list endpoints' query parameters as the API reads them (hyperfleet-api
// pkg/handlers/list_params.go parseListParams), before any lookup: a size above 100 is refused, not
// capped, so a client that asks for more learns it at once instead of silently getting fewer rows.
import { invalid, type FieldError } from './problem';

/** A page request: `page` from 1. */
export interface ListParams {
  readonly page: number;
  readonly size: number;
}

const DEFAULTS = { page: 1, size: 20 } as const; // services/types.go NewListArguments
const LIMITS = { size: { min: 1, max: 100 }, page: { min: 1, max: 100_000 } } as const;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The value of Go's strconv.ParseInt(v, 10, 64), or undefined where it fails. */
function parseInt64(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value < INT64_MIN || value > INT64_MAX ? undefined : Number(value);
}

/**
 * Reads `page` and `size` (trimmed; empty means the default). Integers that do not parse are 400
 * "must be a valid integer" for each such field; then out-of-range values are 400 with one error per
 * field, size before page (the order of the API's listParams struct).
 */
export function parseListParams(query: URLSearchParams): ListParams {
  const values = { page: DEFAULTS.page as number, size: DEFAULTS.size as number };
  const formatErrors: FieldError[] = [];
  for (const field of ['page', 'size'] as const) {
    const text = (query.get(field) ?? '').trim();
    if (text === '') continue;
    const parsed = parseInt64(text);
    if (parsed === undefined)
      formatErrors.push({
        field,
        value: text,
        constraint: 'format',
        message: 'must be a valid integer',
      });
    else values[field] = parsed;
  }
  if (formatErrors.length > 0) throw invalid('Invalid query parameters', formatErrors);
  const rangeErrors: FieldError[] = [];
  for (const field of ['size', 'page'] as const) {
    const { min, max } = LIMITS[field];
    const value = values[field];
    if (value < min)
      rangeErrors.push({
        field,
        value,
        constraint: 'min',
        message: `${field} must be at least ${min}`,
      });
    else if (value > max)
      rangeErrors.push({
        field,
        value,
        constraint: 'max',
        message: `${field} must be at most ${max}`,
      });
  }
  if (rangeErrors.length > 0) throw invalid('Invalid query parameters', rangeErrors);
  return values;
}
