/**
 * A string matching a simple regular expression (a JSON Schema `pattern`), built by reading the
 * pattern: literals, escapes (\d \w \s and escaped punctuation), character classes, `.`, groups with
 * alternatives (the first is taken), quantifiers (their minimum) and anchors. Anything else
 * (lookaround, back-references, \b, Unicode properties) gives undefined: the caller then has no
 * value rather than a wrong one. The result is a candidate; the caller validates it.
 */
export function exampleOf(pattern: string): string | undefined {
  const parser = new PatternReader(pattern);
  try {
    const out = parser.alternatives();
    return parser.done() ? out : undefined;
  } catch {
    return undefined;
  }
}

const MAX_REPEAT = 64;
const CLASS_ESCAPES: Readonly<Record<string, string>> = { d: '1', w: 'a', s: ' ', D: 'a', W: '-', S: 'a' };
const CONTROL_ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v' };
const CLASS_RANGES: Readonly<Record<string, Array<[number, number]>>> = {
  d: [[48, 57]],
  w: [[48, 57], [65, 90], [95, 95], [97, 122]],
  s: [[32, 32], [9, 13]],
};
/** Preferred picks from a character class, most readable first. */
const PREFERRED = 'a1A-_.x';

class Unsupported extends Error {}

class PatternReader {
  private i = 0;
  constructor(private readonly p: string) {}

  done(): boolean {
    return this.i === this.p.length;
  }

  /** a|b|c: the first alternative. */
  alternatives(): string {
    const first = this.sequence();
    while (this.p[this.i] === '|') {
      this.i++;
      this.sequence();
    }
    return first;
  }

  private sequence(): string {
    let out = '';
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
      const atom = this.atom();
      const times = this.quantifier();
      out += atom.repeat(times);
    }
    return out;
  }

  private atom(): string {
    const c = this.p[this.i++]!;
    switch (c) {
      case '^':
      case '$':
        return '';
      case '.':
        return 'a';
      case '(': {
        if (this.p[this.i] === '?') {
          if (this.p[this.i + 1] !== ':') throw new Unsupported('lookaround or named group');
          this.i += 2;
        }
        const inner = this.alternatives();
        if (this.p[this.i++] !== ')') throw new Unsupported('unclosed group');
        return inner;
      }
      case '[':
        return this.charClass();
      case '\\':
        return this.escape();
      case '*':
      case '+':
      case '?':
      case '{':
        throw new Unsupported('quantifier without atom');
      default:
        return c;
    }
  }

  private escape(): string {
    const c = this.p[this.i++];
    if (c === undefined) throw new Unsupported('trailing backslash');
    if (c in CLASS_ESCAPES) return CLASS_ESCAPES[c]!;
    if (c in CONTROL_ESCAPES) return CONTROL_ESCAPES[c]!;
    if (/[A-Za-z0-9]/.test(c)) throw new Unsupported(`\\${c}`);
    return c;
  }

  /** [...]: a member, preferring readable characters; [^...]: a readable non-member. */
  private charClass(): string {
    const negated = this.p[this.i] === '^';
    if (negated) this.i++;
    const members: Array<[number, number]> = [];
    while (this.i < this.p.length && this.p[this.i] !== ']') {
      const lo = this.classMember();
      if (lo.length === 1 && lo[0]![0] === lo[0]![1] && this.p[this.i] === '-' && this.i + 1 < this.p.length && this.p[this.i + 1] !== ']') {
        this.i++;
        const hi = this.classMember();
        if (hi.length !== 1 || hi[0]![0] !== hi[0]![1]) throw new Unsupported('range to a class escape');
        members.push([lo[0]![0], hi[0]![0]]);
      } else members.push(...lo);
    }
    if (this.p[this.i++] !== ']') throw new Unsupported('unclosed class');
    const inClass = (ch: string) => members.some(([a, b]) => ch.codePointAt(0)! >= a && ch.codePointAt(0)! <= b);
    for (const ch of PREFERRED) if (inClass(ch) !== negated) return ch;
    if (negated || members.length === 0) throw new Unsupported('no readable character for the class');
    return String.fromCodePoint(members[0]![0]);
  }

  /** One member of a class, as code point ranges (\d and \w are several). */
  private classMember(): Array<[number, number]> {
    const one = (ch: string): Array<[number, number]> => [[ch.codePointAt(0)!, ch.codePointAt(0)!]];
    const c = this.p[this.i++]!;
    if (c !== '\\') return one(c);
    const e = this.p[this.i++];
    if (e === undefined) throw new Unsupported('trailing backslash');
    if (e in CLASS_RANGES) return CLASS_RANGES[e]!;
    if (e in CONTROL_ESCAPES) return one(CONTROL_ESCAPES[e]!);
    if (/[A-Za-z0-9]/.test(e)) throw new Unsupported(`\\${e} in a class`);
    return one(e);
  }

  /** ?, *, +, {n}, {n,}, {n,m} (and their lazy forms): how many times to repeat the atom. */
  private quantifier(): number {
    const c = this.p[this.i];
    let times = 1;
    if (c === '?' || c === '*') {
      this.i++;
      times = 0;
    } else if (c === '+') {
      this.i++;
    } else if (c === '{') {
      const m = /^\{(\d+)(,\d*)?\}/.exec(this.p.slice(this.i));
      if (!m) return 1;
      this.i += m[0].length;
      times = Number(m[1]);
      if (times > MAX_REPEAT) throw new Unsupported('repeat too long');
    } else return 1;
    if (this.p[this.i] === '?') this.i++;
    return times;
  }
}
