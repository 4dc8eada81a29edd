import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The project version from package.json (the bundle sits two levels below it, the source three, the compiled file four). */
export function projectVersion(): string {
  for (const relative of [
    '../../package.json',
    '../../../package.json',
    '../../../../package.json',
  ]) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(__dirname, relative), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'pullsecret-adapter-serverless' && pkg.version) return pkg.version;
    } catch {
      // Try the next location: the file sits at a different depth in dist/ and in the sources.
    }
  }
  return 'unknown';
}
