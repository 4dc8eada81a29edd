// The bench's telemetry section (bench/telemetry-volume.ts): the shipped adapter, job and reporter at
// the deployed log and trace settings. Every unit of work writes log lines and exports spans, and
// nothing any of them writes carries a pull secret's credentials. Needs `npm run build` (bundles).
import { SPEC } from '../../../bench/adapter-bench';
import { measureTelemetryVolume, TELEMETRY_CREDENTIALS } from '../../../bench/telemetry-volume';

/** The user:password inside a pull secret's first auth entry. */
const credentialOf = (pullSecret: string): string => {
  const { auths } = JSON.parse(pullSecret) as { auths: Record<string, { auth: string }> };
  return Buffer.from(Object.values(auths)[0]!.auth, 'base64').toString('utf8');
};

describe('bench telemetry: log bytes and spans per unit of work', () => {
  it('measures every unit with lines and spans, and no output holds a pull secret', async () => {
    const runs = 2;
    const { rows, output } = await measureTelemetryVolume(runs);

    expect(rows.map((r) => [r.unit, r.runs])).toEqual([
      ['adapter event, up to date', runs],
      ['adapter event, launch', runs],
      ['job run, first (new cluster)', runs],
      ['job run, unchanged', runs],
      ['job run, changed', runs],
      ['reporter result message', 2 * runs],
    ]);
    for (const r of rows) {
      expect({ unit: r.unit, logged: r.logBytesP50 > 0 && r.logLinesP50 >= 1 }).toEqual({
        unit: r.unit,
        logged: true,
      });
      expect({ unit: r.unit, traced: r.spansP50 > 0 }).toEqual({ unit: r.unit, traced: true });
    }
    const byUnit = Object.fromEntries(rows.map((r) => [r.unit, r]));
    // A launch reads, writes statuses and calls Cloud Run: more of both than an up-to-date event.
    expect(byUnit['adapter event, launch']!.spansP50).toBeGreaterThan(
      byUnit['adapter event, up to date']!.spansP50,
    );
    expect(byUnit['adapter event, launch']!.logBytesP50).toBeGreaterThan(
      byUnit['adapter event, up to date']!.logBytesP50,
    );

    // The adapter read the cluster's pull secret and the job got its own: none in any output.
    const credentials = [...TELEMETRY_CREDENTIALS, credentialOf(SPEC.pullSecret.data)];
    // Every measured process's output is in what is scanned.
    for (const component of ['pullsecret-adapter', 'pullsecret-job', 'pullsecret-reporter'])
      expect(output).toContain(`/logs/${component}"`);
    for (const credential of credentials) {
      const password = credential.slice(credential.indexOf(':') + 1);
      for (const secret of [credential, Buffer.from(credential).toString('base64'), password])
        expect({ secret, found: output.includes(secret) }).toEqual({ secret, found: false });
    }
  }, 60_000);
});
