// .ci/lib/tools.sh, the installers .ci/run uses where PATH has no terraform or kubectl (the tests
// fail on CI without them), run by bash against fake releases served here: what they install
// runs, and a download whose checksum does not match is refused and installs nothing.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { findOnPath } from '../../helpers/required-tools';
import { ROOT } from '../../helpers/run-process';

const TOOLS = path.join(ROOT, '.ci/lib/tools.sh');
const ARCH = process.arch === 'arm64' ? 'arm64' : 'amd64';
const TERRAFORM_VERSION = '9.9.9';
const KUBECTL_VERSION = 'v9.9.9';

/** A zip archive holding one executable file, stored uncompressed (what unzip and Python read). */
function zipOf(name: string, content: Buffer): Buffer {
  const nameBytes = Buffer.from(name);
  const crc = crc32(content);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4); // version needed
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(content.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, so the mode below counts
  central.writeUInt16LE(20, 6);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(content.length, 20);
  central.writeUInt32LE(content.length, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  central.writeUInt32LE((0o100755 << 16) >>> 0, 38);
  const centralOffset = local.length + nameBytes.length + content.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + nameBytes.length, 12);
  end.writeUInt32LE(centralOffset, 16);
  return Buffer.concat([local, nameBytes, content, central, nameBytes, end]);
}

/** The commands tools.sh runs (unzip or python3, whichever this machine has). */
const INSTALLER_COMMANDS = [
  'bash',
  'cat',
  'curl',
  'grep',
  'install',
  'mkdir',
  'mktemp',
  'python3',
  'rm',
  'sha256sum',
  'tr',
  'uname',
  'unzip',
];

/** Runs a bash script to its end with exactly `env`. */
function bash(
  script: string,
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // stdin not a pipe: Debian's bash reads ~/.bashrc when stdin is a socket (as Node's pipes are).
    const child = spawn(findOnPath('bash') ?? 'bash', ['-c', script], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('.ci/lib/tools.sh: installing terraform and kubectl for CI', () => {
  const terraformZipName = `terraform_${TERRAFORM_VERSION}_linux_${ARCH}.zip`;
  const terraformZip = zipOf('terraform', Buffer.from('#!/bin/sh\necho "Terraform v9.9.9"\n'));
  const kubectl = Buffer.from('#!/bin/sh\necho "Client Version: v9.9.9"\n');
  /** The checksums the fake releases publish; a test may tamper with them. */
  const published = { terraform: sha256(terraformZip), kubectl: sha256(kubectl) };
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      const files: Record<string, Buffer> = {
        [`/terraform/${TERRAFORM_VERSION}/${terraformZipName}`]: terraformZip,
        [`/terraform/${TERRAFORM_VERSION}/terraform_${TERRAFORM_VERSION}_SHA256SUMS`]: Buffer.from(
          `${'0'.repeat(64)}  terraform_${TERRAFORM_VERSION}_darwin_${ARCH}.zip\n${published.terraform}  ${terraformZipName}\n`,
        ),
        [`/kubectl/${KUBECTL_VERSION}/bin/linux/${ARCH}/kubectl`]: kubectl,
        [`/kubectl/${KUBECTL_VERSION}/bin/linux/${ARCH}/kubectl.sha256`]: Buffer.from(
          published.kubectl,
        ),
      };
      const file = files[request.url ?? ''];
      response.writeHead(file ? 200 : 404).end(file ?? '');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /**
   * Runs `script` in bash with tools.sh sourced and the fake releases configured; not spawnSync,
   * which would block the server in this process that the script downloads from.
   */
  const withTools = (script: string, bin: string, env: NodeJS.ProcessEnv = {}) =>
    bash(`source "$TOOLS" && ${script}`, {
      PATH: process.env.PATH,
      TOOLS,
      BIN: bin,
      CI_TERRAFORM_VERSION: TERRAFORM_VERSION,
      CI_KUBECTL_VERSION: KUBECTL_VERSION,
      CI_TERRAFORM_RELEASES: `${base}/terraform`,
      CI_KUBECTL_RELEASES: `${base}/kubectl`,
      ...env,
    });
  const freshBin = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ci-tools-')), 'bin');

  it('installs the pinned versions, verified, as executables that run', async () => {
    const bin = freshBin();
    const run = await withTools('ci_install_terraform "$BIN" && ci_install_kubectl "$BIN"', bin);
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(spawnSync(path.join(bin, 'terraform'), { encoding: 'utf8' }).stdout).toBe(
      'Terraform v9.9.9\n',
    );
    expect(spawnSync(path.join(bin, 'kubectl'), { encoding: 'utf8' }).stdout).toBe(
      'Client Version: v9.9.9\n',
    );
  });

  it.each(['terraform', 'kubectl'] as const)(
    'refuses a %s download whose checksum does not match, and installs nothing',
    async (tool) => {
      const genuine = published[tool];
      published[tool] = sha256(Buffer.from('something else'));
      try {
        const bin = freshBin();
        const run = await withTools(`ci_install_${tool} "$BIN"`, bin);
        expect(run.status).not.toBe(0);
        expect(run.stderr).toContain('ci: could not download and verify');
        expect(fs.existsSync(path.join(bin, tool))).toBe(false);
      } finally {
        published[tool] = genuine;
      }
    },
  );

  it('ci_ensure_tools puts its directory first on PATH and installs only what PATH lacks', async () => {
    const bin = freshBin();
    fs.mkdirSync(bin, { recursive: true });
    // A kubectl already there is kept; terraform, found nowhere on this PATH, is installed.
    fs.writeFileSync(path.join(bin, 'kubectl'), '#!/bin/sh\necho mine\n', { mode: 0o755 });
    // A PATH with what the installers use and without this machine's terraform and kubectl.
    const system = fs.mkdtempSync(path.join(os.tmpdir(), 'ci-tools-path-'));
    for (const command of INSTALLER_COMMANDS) {
      const found = findOnPath(command);
      if (found) fs.symlinkSync(found, path.join(system, command));
    }
    const run = await withTools('ci_ensure_tools "$BIN" && terraform && kubectl', bin, {
      PATH: system,
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(run.stdout).toBe(
      `ci: installing Terraform ${TERRAFORM_VERSION} into ${bin}\nTerraform v9.9.9\nmine\n`,
    );
  });
});
