import { createRequire } from 'node:module';
import type { Ajv, Options } from 'ajv';
import type { Ajv2019 } from 'ajv/dist/2019.js';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type AjvDraft04Module from 'ajv-draft-04';
import type { Dialect } from './dialects.js';
import type addFormatsModule from 'ajv-formats';
import { fingerprintOf, loadModuleAt, precompiledPath } from './precompiled.js';

/**
 * Ajv and its plugins, as mcpcheck uses them at run time: from the single module the build
 * bundles them into (src/build/bundle-ajv.ts), run with its V8 code cache, or, when that is
 * missing or stale, from node_modules. Requiring Ajv's 2020-12 class from node_modules cost about
 * 30 ms (dozens of small files, each resolved, read and compiled); the bundle costs about 6 ms.
 */

const require = createRequire(import.meta.url);

type AjvDraft04Class = typeof AjvDraft04Module.default;
export type AjvDraft04 = InstanceType<AjvDraft04Class>;
export type AnyAjv = Ajv | Ajv2019 | Ajv2020 | AjvDraft04;

/** What the bundle exports; the build's entry (BUNDLE_ENTRY) lists the same names. */
export interface AjvLibrary {
  Ajv: typeof import('ajv').Ajv;
  Ajv2019: typeof import('ajv/dist/2019.js').Ajv2019;
  Ajv2020: typeof import('ajv/dist/2020.js').Ajv2020;
  AjvDraft04: AjvDraft04Class;
  addFormats: typeof addFormatsModule.default;
  draft06MetaSchema: object;
}

/** The bundle also carries the modules the build's generated validators require. */
interface AjvBundle extends AjvLibrary {
  /** By the specifier the generated code requires them with. */
  runtime: Readonly<Record<string, unknown>>;
}

/** The specifiers Ajv's standalone code requires: ajv-formats' checks and Ajv's deep equality. */
export const RUNTIME_MODULES = ['ajv-formats/dist/formats', 'ajv/dist/runtime/equal', 'ajv/dist/runtime/ucs2length', 'ajv/dist/runtime/uri'] as const;

/** The bundle's entry module: CommonJS, resolved from the package root. */
export const BUNDLE_ENTRY = [
  `exports.Ajv = require('ajv').Ajv;`,
  `exports.Ajv2019 = require('ajv/dist/2019').Ajv2019;`,
  `exports.Ajv2020 = require('ajv/dist/2020').Ajv2020;`,
  `exports.AjvDraft04 = require('ajv-draft-04').default;`,
  `exports.addFormats = require('ajv-formats').default;`,
  `exports.draft06MetaSchema = require('ajv/dist/refs/json-schema-draft-06.json');`,
  `exports.runtime = {${RUNTIME_MODULES.map((m) => `${JSON.stringify(m)}: require(${JSON.stringify(m)})`).join(', ')}};`,
].join('\n');

export const AJV_GROUP = 'ajv';
export const BUNDLE_NAME = 'ajv';

/** Changes whenever the bundle would: another entry, or other versions of Ajv and its plugins. */
export function bundleFingerprint(): string {
  return fingerprintOf(['ajv-bundle', BUNDLE_ENTRY]);
}

/** Each part required when first used, so a fallback run loads only what it needs. */
const installed: AjvLibrary = {
  get Ajv() {
    return (require('ajv') as typeof import('ajv')).Ajv;
  },
  get Ajv2019() {
    return (require('ajv/dist/2019.js') as typeof import('ajv/dist/2019.js')).Ajv2019;
  },
  get Ajv2020() {
    return (require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')).Ajv2020;
  },
  get AjvDraft04() {
    // CommonJS with `exports.default`.
    return (require('ajv-draft-04') as { default: AjvDraft04Class }).default;
  },
  get addFormats() {
    return (require('ajv-formats') as { default: typeof addFormatsModule.default }).default;
  },
  get draft06MetaSchema() {
    return require('ajv/dist/refs/json-schema-draft-06.json') as object;
  },
};

let bundle: AjvBundle | null | undefined;

function loadedBundle(): AjvBundle | null {
  if (bundle === undefined) bundle = (loadModuleAt(precompiledPath(AJV_GROUP, BUNDLE_NAME), bundleFingerprint()) as AjvBundle | undefined) ?? null;
  return bundle;
}

/** The bundle when the build made one for this Ajv, else node_modules. */
export function ajvLibrary(): AjvLibrary {
  return loadedBundle() ?? installed;
}

/** The bundle's copies of the modules generated validators require; undefined without a bundle (they come from node_modules). */
export function ajvRuntimeModules(): Readonly<Record<string, unknown>> | undefined {
  return loadedBundle()?.runtime;
}

/**
 * An Ajv instance for `dialect` (its class, and its meta-schema) with ajv-formats added, both from one copy of Ajv (the plugin's
 * code generation must be the instance's). For standalone generation at build time (Ajv's
 * `code.source`) it is the installed Ajv: the caller's code snippets are that copy's objects.
 */
export function newAjvInstance(dialect: Dialect, options: Options): AnyAjv {
  const lib = options.code?.source ? installed : ajvLibrary();
  let ajv: AnyAjv;
  switch (dialect) {
    case '2020-12':
      ajv = new lib.Ajv2020(options);
      break;
    case '2019-09':
      ajv = new lib.Ajv2019(options);
      break;
    case 'draft-07':
      ajv = new lib.Ajv(options);
      break;
    case 'draft-06':
      ajv = new lib.Ajv(options);
      ajv.addMetaSchema(lib.draft06MetaSchema);
      break;
    case 'draft-04':
      ajv = new lib.AjvDraft04(options);
      break;
  }
  lib.addFormats(ajv as Ajv);
  return ajv;
}

/**
 * An Ajv for the official MCP schemas of the 2020-12 revisions: Ajv's 2020-12 vocabularies and
 * meta-schema, without the bookkeeping unevaluatedProperties/Items need, which Ajv's 2020-12 class
 * always keeps. No official schema uses either keyword (tests/schemas.test.ts); with the
 * bookkeeping, an anyOf went on trying its branches after one held (a text ContentBlock: the text
 * branch, then four failing ones, each building its errors), which was a tenth of judging a long
 * transcript. From node_modules: it compiles at build time, and at run time only when a generated
 * validator is missing.
 */
export function newMcpSchemaAjv(options: Options): Ajv {
  const Core = (require('ajv/dist/core') as typeof import('ajv/dist/core.js')).default;
  const vocabularies = (require('ajv/dist/vocabularies/draft2020') as typeof import('ajv/dist/vocabularies/draft2020.js')).default;
  const addMetaSchema2020 = (require('ajv/dist/refs/json-schema-2020-12') as typeof import('ajv/dist/refs/json-schema-2020-12/index.js')).default;
  class McpSchemaAjv extends Core {
    constructor(opts: Options) {
      super({ ...opts, dynamicRef: true, next: true, unevaluated: false });
    }

    override _addVocabularies(): void {
      super._addVocabularies();
      for (const vocabulary of vocabularies) this.addVocabulary(vocabulary);
    }

    override _addDefaultMetaSchema(): void {
      super._addDefaultMetaSchema();
      if (this.opts.meta) addMetaSchema2020.call(this as never, this.opts.$data);
    }
  }
  const ajv = new McpSchemaAjv(options);
  installed.addFormats(ajv as never);
  return ajv as unknown as Ajv;
}
