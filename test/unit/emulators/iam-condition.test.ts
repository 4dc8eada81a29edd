// The CEL subset of IAM Conditions the Secret Manager emulator evaluates (what Terraform writes):
// https://cloud.google.com/iam/docs/conditions-overview (operators), and
// https://cloud.google.com/iam/docs/conditions-resource-attributes (resource.type, resource.name).
import { compileCondition } from '../../../emulators/common/iam/condition';

const project = { type: 'cloudresourcemanager.googleapis.com/Project', name: 'projects/123' };
const ours = {
  type: 'secretmanager.googleapis.com/Secret',
  name: 'projects/123/secrets/hyperfleet-a',
};
const theirs = { type: 'secretmanager.googleapis.com/Secret', name: 'projects/123/secrets/db' };

describe('IAM condition subset', () => {
  it("evaluates Terraform's job condition: the project, or a hyperfleet-* secret", () => {
    const condition = compileCondition(
      'resource.type == "cloudresourcemanager.googleapis.com/Project" || resource.name.startsWith("projects/123/secrets/hyperfleet-")',
    );
    expect([project, ours, theirs].map(condition)).toEqual([true, true, false]);
  });

  it("evaluates the tenant module's extract() conditions, in any project and on versions, and nowhere else", () => {
    const job = compileCondition(
      'resource.type == "cloudresourcemanager.googleapis.com/Project" || resource.name.extract("/secrets/{id}").startsWith("hyperfleet-")',
    );
    const reader = compileCondition(
      'resource.name.extract("/secrets/{id}").startsWith("hyperfleet-")',
    );
    const version = {
      type: 'secretmanager.googleapis.com/SecretVersion',
      name: 'projects/987/secrets/hyperfleet-b/versions/4',
    };
    const lookalike = {
      type: 'secretmanager.googleapis.com/Secret',
      name: 'projects/987/secrets/not-hyperfleet-x',
    };
    expect([project, ours, theirs, version, lookalike].map(job)).toEqual([
      true,
      true,
      false,
      true,
      false,
    ]);
    expect([project, ours, theirs, version, lookalike].map(reader)).toEqual([
      false,
      true,
      false,
      true,
      false,
    ]);
  });

  it('refuses an extract() template without exactly one placeholder', () => {
    expect(() => compileCondition('resource.name.extract("/secrets/").startsWith("x")')).toThrow(
      /one \{placeholder\}/,
    );
  });

  it('gives && precedence over ||, honours parentheses and single quotes', () => {
    const loose = compileCondition(
      "resource.type == 'x' || resource.name.startsWith('projects/123/') && resource.type == 'secretmanager.googleapis.com/Secret'",
    );
    expect([project, ours].map(loose)).toEqual([false, true]);
    const grouped = compileCondition(
      '(resource.type == "x" || resource.name.startsWith("projects/123/")) && resource.type == "secretmanager.googleapis.com/Secret"',
    );
    expect([project, ours].map(grouped)).toEqual([false, true]);
  });

  it.each([
    'request.time < timestamp("2030-01-01T00:00:00Z")',
    'resource.service == "secretmanager.googleapis.com"',
    'resource.name.endsWith("x")',
    'resource.type == "a" ||',
    '!(resource.type == "a")',
    'resource.name.startsWith("unterminated)',
  ])('refuses %s instead of judging it some other way', (expression) => {
    expect(() => compileCondition(expression)).toThrow(/unsupported IAM condition/);
  });
});
