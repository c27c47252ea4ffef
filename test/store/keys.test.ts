import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PK, SK } from '../../shared/store/keys';

const ROOT = join(import.meta.dirname, '..', '..');
const KEYS_FILE = 'shared/store/keys.ts';
// generated from the OpenAPI document, which names no key
const SKIPPED = new Set([KEYS_FILE, 'shared/api/client/schema.ts']);

/** A key prefix written out: `SESSION#`, `…#ALERT#`, or one of the partition keys without a `#`. */
const PREFIX_LIKE = /[A-Z]{3,}#/;
const WHOLE_KEYS = new Set<string>(Object.values(PK).filter((prefix) => !prefix.endsWith('#')));

function sourceFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `${folder}/${file}`)
    .filter((file) => !SKIPPED.has(file));
}

/** The text of every string and template literal of a file (comments are not literals). */
function literals(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('shared/store/keys.ts', () => {
  it('holds every key prefix: no other module of shared/, functions/ or infra/ writes one out', () => {
    const offenders = ['shared', 'functions', 'infra'].flatMap((folder) =>
      sourceFiles(folder).flatMap((file) =>
        literals(file)
          .filter((text) => PREFIX_LIKE.test(text) || WHOLE_KEYS.has(text))
          .map((text) => `${file}: ${JSON.stringify(text)}`),
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('scans what it means to: keys.ts itself writes the prefixes out', () => {
    const own = literals(KEYS_FILE);
    for (const prefix of [...Object.values(PK), ...Object.values(SK)]) expect(own, prefix).toContain(prefix);
  });

  it('names each partition prefix once', () => {
    expect(new Set(Object.values(PK)).size).toBe(Object.values(PK).length);
  });
});
