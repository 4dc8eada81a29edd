import { PermanentError } from '../../../shared/errors';
import {
  answeredAs,
  formatSecretManagerName,
  isProjectNumber,
  nameAsAsked,
  parseSecretManagerName,
  secretVersionNameSchema,
  versionNumberOf,
} from '../../../shared/gcp/secret-manager-names';

const BY_ID = 'projects/customer-project/secrets/hyperfleet-c1-pull-secret';
const BY_NUMBER = 'projects/188597983624/secrets/hyperfleet-c1-pull-secret';

describe('Secret Manager names', () => {
  it('parses and formats secret and version names', () => {
    expect(parseSecretManagerName(BY_ID)).toEqual({
      project: 'customer-project',
      secret: 'hyperfleet-c1-pull-secret',
    });
    expect(parseSecretManagerName(`${BY_NUMBER}/versions/latest`)).toEqual({
      project: '188597983624',
      secret: 'hyperfleet-c1-pull-secret',
      version: 'latest',
    });
    for (const name of [BY_ID, `${BY_NUMBER}/versions/3`])
      expect(formatSecretManagerName(parseSecretManagerName(name)!)).toBe(name);
    for (const other of [
      '',
      'projects/p',
      'projects/p/topics/t',
      `${BY_ID}/versions/1/extra`,
      'x/versions/1',
    ])
      expect(parseSecretManagerName(other)).toBeUndefined();
  });

  it('tells a project number from a project id', () => {
    expect(isProjectNumber('188597983624')).toBe(true);
    expect(isProjectNumber('customer-project')).toBe(false);
    expect(isProjectNumber('project-123')).toBe(false);
  });

  it('reads a version number from a name in either form, and nothing from latest or an alias', () => {
    expect(versionNumberOf(`${BY_ID}/versions/3`)).toBe(3);
    expect(versionNumberOf(`${BY_NUMBER}/versions/12`)).toBe(12);
    expect(versionNumberOf(`${BY_ID}/versions/latest`)).toBeNaN();
    expect(versionNumberOf(`${BY_ID}/versions/current`)).toBeNaN();
    expect(versionNumberOf(BY_ID)).toBeNaN();
  });

  it('puts an answer by project number back in the form of the request by id', () => {
    expect(answeredAs(`${BY_ID}/versions/latest`, `${BY_NUMBER}/versions/4`)).toBe(
      `${BY_ID}/versions/4`,
    );
    expect(answeredAs(`${BY_ID}/versions/current`, `${BY_NUMBER}/versions/2`)).toBe(
      `${BY_ID}/versions/2`,
    );
    // A version listed under, or added to, the secret asked about.
    expect(answeredAs(BY_ID, `${BY_NUMBER}/versions/7`)).toBe(`${BY_ID}/versions/7`);
    // An answer in the request's own form (an emulator that echoes) is the same name.
    expect(answeredAs(BY_ID, `${BY_ID}/versions/7`)).toBe(`${BY_ID}/versions/7`);
    // A request by number stays in the number form.
    expect(answeredAs(`${BY_NUMBER}/versions/3`, `${BY_NUMBER}/versions/3`)).toBe(
      `${BY_NUMBER}/versions/3`,
    );
  });

  it('refuses an answer about another resource', () => {
    // Another secret.
    expect(answeredAs(BY_ID, 'projects/188597983624/secrets/other/versions/1')).toBeUndefined();
    // Another project in the same form: two ids, or two numbers.
    expect(
      answeredAs(BY_ID, 'projects/other-project/secrets/hyperfleet-c1-pull-secret/versions/1'),
    ).toBeUndefined();
    expect(
      answeredAs(BY_NUMBER, 'projects/999999999999/secrets/hyperfleet-c1-pull-secret/versions/1'),
    ).toBeUndefined();
    // Another version than the number asked for.
    expect(answeredAs(`${BY_ID}/versions/3`, `${BY_NUMBER}/versions/4`)).toBeUndefined();
    // Not a name.
    expect(answeredAs(BY_ID, '')).toBeUndefined();
    expect(answeredAs('nonsense', `${BY_NUMBER}/versions/1`)).toBeUndefined();
  });

  it('refuses to act on an answer about another resource, naming both', () => {
    expect(nameAsAsked('AddSecretVersion', BY_ID, `${BY_NUMBER}/versions/5`)).toBe(
      `${BY_ID}/versions/5`,
    );
    const refuse = () =>
      nameAsAsked('ListSecretVersions', BY_ID, 'projects/1/secrets/other/versions/5');
    expect(refuse).toThrow(PermanentError);
    expect(refuse).toThrow(
      `Secret Manager answered ListSecretVersions on ${BY_ID} with projects/1/secrets/other/versions/5, which is not that resource`,
    );
    expect(() => nameAsAsked('AccessSecretVersion', BY_ID, '')).toThrow(/with no name/);
  });

  it('accepts configured version names in either form, and nothing else', () => {
    expect(secretVersionNameSchema.safeParse(`${BY_ID}/versions/latest`).success).toBe(true);
    expect(secretVersionNameSchema.safeParse(`${BY_NUMBER}/versions/1`).success).toBe(true);
    const refused = secretVersionNameSchema.safeParse(BY_ID);
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe('must be projects/P/secrets/S/versions/V');
  });
});
