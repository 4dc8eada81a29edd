import type { IncomingMessage } from 'node:http';
import YAML from 'yaml';
import { readBody } from '../common/http';
import { isObject, type Json } from './merge-patch';
import type { PatchType } from './object-book';
import { badRequest } from './status';

/** The PATCH content types the API server accepts, by flavour. */
export const PATCH_TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
  'application/apply-patch+json': 'apply',
};

/** A JSON object request body (create, update, delete options), at most 3 MiB like the real server. */
export async function objectBody(
  req: IncomingMessage,
  optional = false,
): Promise<{ [key: string]: Json }> {
  const text = await readBody(req, 3 * 1024 * 1024);
  if (text.trim() === '') {
    if (optional) return {};
    throw badRequest('request body is required');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('the body of the request is not valid JSON');
  }
  if (!isObject(parsed as Json)) throw badRequest('the body of the request must be a JSON object');
  return parsed as { [key: string]: Json };
}

/** A PATCH body: YAML for apply patches, JSON otherwise. */
export async function patchBody(req: IncomingMessage, type: PatchType): Promise<Json> {
  const text = await readBody(req, 3 * 1024 * 1024);
  try {
    return (type === 'apply' ? YAML.parse(text) : JSON.parse(text)) as Json;
  } catch {
    throw badRequest(`the patch body is not valid ${type === 'apply' ? 'YAML' : 'JSON'}`);
  }
}
