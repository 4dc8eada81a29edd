// Reads a Go module's packages out of a git directory at one ref (a bare mirror is enough: nothing
// is checked out), and indexes each package's declarations on first use.
'use strict';

const { execFileSync, spawnSync } = require('node:child_process');
const path = require('node:path');
const { tokenize } = require('./go-tokens.cjs');
const { indexFile } = require('./go-parse.cjs');

const git = (gitDir, args) =>
  execFileSync('git', ['-C', gitDir, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });

class GoSource {
  constructor(gitDir, ref) {
    this.gitDir = gitDir;
    this.ref = ref;
    this.commit = git(gitDir, ['rev-list', '-n', '1', ref]).trim();
    this.modulePath = /^module\s+(\S+)/m.exec(git(gitDir, ['show', `${this.commit}:go.mod`]))[1];
    this.filesByDir = new Map();
    for (const file of git(gitDir, ['ls-tree', '-r', '--name-only', this.commit]).split('\n')) {
      if (!file.endsWith('.go') || file.endsWith('_test.go')) continue;
      const dir = path.posix.dirname(file);
      this.filesByDir.set(dir, [...(this.filesByDir.get(dir) ?? []), file]);
    }
    this.packages = new Map();
  }

  /** The folder of an import path inside this module, or null for another module's package. */
  dirOf(importPath) {
    if (!importPath.startsWith(`${this.modulePath}/`)) return null;
    const dir = importPath.slice(this.modulePath.length + 1);
    return this.filesByDir.has(dir) ? dir : null;
  }

  /** Contents of `files` at the commit, read in one `git cat-file --batch`. */
  read(files) {
    const result = spawnSync('git', ['-C', this.gitDir, 'cat-file', '--batch'], {
      input: files.map((file) => `${this.commit}:${file}\n`).join(''),
      maxBuffer: 1 << 30,
    });
    if (result.status !== 0) throw new Error(`git cat-file failed: ${result.stderr}`);
    const out = result.stdout;
    const contents = [];
    let offset = 0;
    for (const file of files) {
      const headerEnd = out.indexOf(10, offset);
      const header = out.subarray(offset, headerEnd).toString();
      const size = Number(header.split(' ')[2]);
      if (!/ blob /.test(header)) throw new Error(`cannot read ${file}: ${header}`);
      contents.push(out.subarray(headerEnd + 1, headerEnd + 1 + size).toString('utf8'));
      offset = headerEnd + 1 + size + 1;
    }
    return contents;
  }

  /** The package in folder `dir`: its files' indexes and its functions, methods and values by name. */
  package(dir) {
    if (this.packages.has(dir)) return this.packages.get(dir);
    const files = this.filesByDir.get(dir);
    if (!files) throw new Error(`no Go package at ${dir} in ${this.ref}`);
    const pkg = {
      dir,
      importPath: `${this.modulePath}/${dir}`,
      name: '',
      files: [],
      funcs: new Map(),
      methods: new Map(),
      values: new Map(),
    };
    this.read(files).forEach((content, i) => {
      const index = indexFile(tokenize(content, files[i]), files[i]);
      pkg.name = index.packageName;
      pkg.files.push(index);
      for (const decl of index.funcs) {
        const entry = { decl, file: index, pkg };
        if (decl.receiver) pkg.methods.set(`${decl.receiver.type}.${decl.name}`, entry);
        else if (decl.name !== 'init') pkg.funcs.set(decl.name, entry);
      }
      for (const value of index.values) pkg.values.set(value.name, { ...value, file: index, pkg });
    });
    this.packages.set(dir, pkg);
    return pkg;
  }

  /** Files under `dir` whose text matches the extended regular expression `pattern`. */
  grep(pattern, dir) {
    const result = spawnSync(
      'git',
      ['-C', this.gitDir, 'grep', '-l', '-E', pattern, this.commit, '--', dir, ':!*_test.go'],
      { encoding: 'utf8', maxBuffer: 1 << 30 },
    );
    if (result.status > 1) throw new Error(`git grep failed: ${result.stderr}`);
    return result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(this.commit.length + 1));
  }
}

module.exports = { GoSource };
