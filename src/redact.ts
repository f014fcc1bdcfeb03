/**
 * Secrets kept out of everything mcpcheck writes. A target inherits mcpcheck's environment, and a
 * target may echo it (server-everything's `get-env` does): any text of a report, transcript,
 * progress line or error that holds the value of an environment variable shows `$NAME` in its
 * place, so a reproduce line that held it still runs where that variable is set; a `--header`
 * value shows `[--header NAME]`.
 */

/** Shorter values are left: too short to be a secret worth hiding, too common to replace without garbling a report. */
export const MIN_SECRET_CHARS = 8;

/**
 * Variables that say where and how a program runs, never what it may do: left as they are, so paths
 * and names in a report read as written. A name that looks like a credential is never one of them.
 */
const PUBLIC_NAMES = new Set([
  'PATH', 'HOME', 'PWD', 'OLDPWD', 'INIT_CWD', 'SHELL', 'TERM', 'TERM_PROGRAM', 'TERM_PROGRAM_VERSION', 'COLORTERM',
  'LANG', 'LANGUAGE', 'USER', 'LOGNAME', 'HOSTNAME', 'TMPDIR', 'TMP', 'TEMP', 'EDITOR', 'VISUAL', 'PAGER', 'SHLVL',
  '_', 'NODE', 'NODE_ENV', 'MAIL', 'MANPATH', 'DISPLAY', 'CI',
]);
// npm's settings and a CI runner's description of the job; their credentials have names that say so.
const PUBLIC_PREFIXES = ['LC_', 'XDG_', 'npm_package_', 'npm_lifecycle_', 'npm_config_', 'npm_node_execpath', 'npm_execpath', 'npm_command', 'GITHUB_', 'RUNNER_'];
const CREDENTIAL_NAME = /TOKEN|SECRET|PASS|KEY|AUTH|CRED|COOKIE|SESSION|PRIVATE|SIGNATURE/i;

function isPublic(name: string): boolean {
  if (CREDENTIAL_NAME.test(name)) return false;
  return PUBLIC_NAMES.has(name) || PUBLIC_PREFIXES.some((p) => name.startsWith(p));
}

/** A value as it may appear: as is, inside a JSON string, and inside a JSON string inside that (a tool's JSON text in a frame). */
function formsOf(value: string): string[] {
  const once = JSON.stringify(value).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  return [...new Set([value, once, twice])];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Deeper than this a value is redacted through its JSON text instead of walked: a target's frame may nest without end. */
const MAX_DEPTH = 200;
/** What stands for a value too deep even for its JSON text, which could hold a secret no search reached. */
const TOO_DEEP = '[not shown: nested too deep to search for secrets]';

/** The shortest start of a secret that is hidden where a text was cut after it. */
const CUT_PREFIX_CHARS = 4;
/** What mcpcheck appends where it cuts a text it quotes (excerpts, show(), frames kept, wire logs). */
export const CUT_MARK = '…';

/**
 * Replaces secrets in text and in data (every string of a value, keys too). Built once per run
 * from the environment mcpcheck started with and the `--header` values; without secrets both are
 * the identity. A text cut in the middle of a secret (an excerpt, a quoted value) would show its
 * start: where mcpcheck's cut mark follows the start of a secret, that start is replaced too.
 */
export class Redactor {
  private pattern: RegExp | undefined;
  private readonly replacement = new Map<string, string>();
  /** Each 4-character piece of each form, with where it starts in which form: finds a cut start of a secret from a text's last 4 characters. */
  private readonly pieces = new Map<string, Array<{ form: string; at: number }>>();
  /** Of a secret that starts with a public part (a credential's scheme, `Bearer `): its length, which a cut start must go beyond to be one. */
  private readonly publicStart = new Map<string, number>();

  constructor(secrets: ReadonlyArray<Secret>) {
    this.add(secrets);
  }

  /** Adds secrets, as a run learns them (a token mcpcheck obtained): every text redacted from now on is redacted of them too. */
  add(secrets: ReadonlyArray<Secret>): void {
    for (const { value, shownAs, publicPrefix } of secrets) {
      if (value.length < MIN_SECRET_CHARS) continue;
      for (const form of formsOf(value)) {
        // The first name given a value wins: the caller lists the environment before headers.
        if (this.replacement.has(form)) continue;
        this.replacement.set(form, shownAs);
        if (publicPrefix !== undefined) this.publicStart.set(form, publicPrefix);
        for (let at = 0; at + CUT_PREFIX_CHARS < form.length; at++) {
          const piece = form.slice(at, at + CUT_PREFIX_CHARS);
          const list = this.pieces.get(piece) ?? [];
          list.push({ form, at });
          this.pieces.set(piece, list);
        }
      }
    }
    // Longest first: a value that holds another is replaced whole.
    const forms = [...this.replacement.keys()].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
    if (forms.length > 0) this.pattern = new RegExp(forms.map(escapeRegExp).join('|'), 'g');
  }

  get empty(): boolean {
    return this.pattern === undefined;
  }

  text(s: string): string {
    if (!this.pattern) return s;
    let out = s.replace(this.pattern, (m) => this.replacement.get(m)!);
    // Every cut mark once, the last first: a replacement before one leaves the earlier ones where they were.
    const marks: number[] = [];
    for (let i = out.indexOf(CUT_MARK); i >= 0; i = out.indexOf(CUT_MARK, i + 1)) marks.push(i);
    for (const i of marks.reverse()) out = this.cutStartBefore(out, i);
    return out;
  }

  /** A copy of `value` with every string (and key) redacted; the same value when nothing was. */
  deep<T>(value: T): T {
    if (!this.pattern) return value;
    return this.walk(value, 0) as T;
  }

  private walk(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.text(value);
    if (value === null || typeof value !== 'object') return value;
    if (depth > MAX_DEPTH) return this.throughText(value);
    if (Array.isArray(value)) {
      let changed = false;
      const out = value.map((v) => {
        const w = this.walk(v, depth + 1);
        if (w !== v) changed = true;
        return w;
      });
      return changed ? out : value;
    }
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const key = this.text(k);
      const w = this.walk(v, depth + 1);
      if (key !== k || w !== v) changed = true;
      out[key] = w;
    }
    return changed ? out : value;
  }

  /** A value nested deeper than the walk goes, redacted as its JSON text; a placeholder when that text cannot be had or read back. */
  private throughText(value: object): unknown {
    try {
      const text = JSON.stringify(value);
      const redacted = this.text(text);
      return redacted === text ? value : JSON.parse(redacted);
    } catch {
      return TOO_DEEP;
    }
  }

  /** `s` with a secret's start that ends at `end` (where a cut was) replaced. */
  private cutStartBefore(s: string, end: number): string {
    if (end < CUT_PREFIX_CHARS) return s;
    const candidates = this.pieces.get(s.slice(end - CUT_PREFIX_CHARS, end));
    if (!candidates) return s;
    let best = 0;
    let shownAs = '';
    for (const { form, at } of candidates) {
      const length = at + CUT_PREFIX_CHARS;
      if (length > best && length > (this.publicStart.get(form) ?? 0) && length <= end && s.startsWith(form.slice(0, length), end - length)) {
        best = length;
        shownAs = this.replacement.get(form)!;
      }
    }
    return best === 0 ? s : s.slice(0, end - best) + shownAs + s.slice(end);
  }
}

/** A value to hide, and what shows in its place. */
interface Secret {
  value: string;
  shownAs: string;
  /** The length of a public start (a scheme and its space): a text cut right after it shows nothing secret. */
  publicPrefix?: number;
}

/** The values of `--header "Name: value"` lines, and a credential's token after its scheme (`Bearer …`). */
function headerSecrets(headers: ReadonlyArray<string>): Secret[] {
  const out: Secret[] = [];
  for (const line of headers) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    const shownAs = `[--header ${name}]`;
    const space = value.indexOf(' ');
    out.push({ value, shownAs, ...(space > 0 ? { publicPrefix: space + 1 } : {}) });
    if (space > 0) out.push({ value: value.slice(space + 1).trim(), shownAs });
  }
  return out;
}

/** The redactor for a run: every variable of `env` but the public ones, then the `--header` values. */
export function redactorFor(env: NodeJS.ProcessEnv, headers: ReadonlyArray<string> = []): Redactor {
  const secrets: Array<{ value: string; shownAs: string }> = [];
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (value !== undefined && !isPublic(name)) secrets.push({ value, shownAs: `$${name}` });
  }
  return new Redactor([...secrets, ...headerSecrets(headers)]);
}

/** The environment a target starts with: all of mcpcheck's, or only the variables named (`--target-env`). */
export function targetEnv(env: NodeJS.ProcessEnv, names: ReadonlyArray<string> | undefined): NodeJS.ProcessEnv {
  if (names === undefined) return env;
  const out: NodeJS.ProcessEnv = {};
  for (const name of names) if (env[name] !== undefined) out[name] = env[name];
  return out;
}

/** HTTP headers that carry credentials, by name (lower-cased), besides those CREDENTIAL_NAME matches. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
/** A header name that says it carries a secret (x-api-key, x-auth-token, …); the MCP session id is no credential. */
const CREDENTIAL_HEADER_NAME = /key|token|secret|auth|cookie|password|signature/i;

/**
 * HTTP headers (lower-cased names) as they may be written down: each credential's value replaced,
 * an Authorization value keeping its scheme (`Bearer [redacted]`), so what was sent stays evident
 * without what it sent.
 */
export function headersRedacted(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!CREDENTIAL_HEADERS.has(name) && !CREDENTIAL_HEADER_NAME.test(name)) out[name] = value;
    else {
      const scheme = /^(?:authorization|proxy-authorization)$/.test(name) ? /^[A-Za-z][\w!#$%&'*+.^`|~-]*(?= )/.exec(value)?.[0] : undefined;
      out[name] = scheme !== undefined ? `${scheme} [redacted]` : '[redacted]';
    }
  }
  return out;
}

/** A request's path with the values of its query hidden (API keys often travel there); the names stay. */
export function pathRedacted(path: string): string {
  const q = path.indexOf('?');
  if (q < 0) return path;
  const names = path.slice(q + 1).split('&').map((pair) => pair.split('=')[0]);
  return `${path.slice(0, q)}?${names.map((name) => `${name}=[redacted]`).join('&')}`;
}
