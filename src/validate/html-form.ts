/**
 * The forms of an HTML page, read as a browser would submit them: enough of HTML to approve a
 * consent page (an MCP proxy's, SEC-PROXY-01), not a parser of the whole language. Attribute
 * values are read quoted or bare, with the character references such pages use decoded.
 */

export interface FormField {
  name: string;
  value: string;
  /** The input's type, lower-cased (`hidden`, `submit`…); `button` for a button element. */
  type: string;
}

export interface HtmlForm {
  /** The action as written (undefined: the page's own URL). */
  action?: string;
  /** `get` or `post`, lower-cased (HTML's default is get). */
  method: string;
  /** The fields a submission sends whatever button is pressed (not submit buttons). */
  fields: FormField[];
  /** The submit buttons, each with its label (a button's text, or an input's value). */
  buttons: Array<FormField & { label: string }>;
}

/** The most of a page read for forms: a consent page is small, a hostile one need not be. */
const MAX_PAGE_CHARS = 256 * 1024;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Text with the named and numeric character references HTML pages use, decoded. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** The attributes of a tag's text (after its name), names lower-cased, values decoded. */
function attributes(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g)) {
    const name = m[1]!.toLowerCase();
    if (!out.has(name)) out.set(name, decodeEntities(m[2] ?? m[3] ?? m[4] ?? ''));
  }
  return out;
}

/** Text inside tags, tags removed and references decoded, spaces collapsed. */
function textOf(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
}

/** The forms of `html`, in page order. */
export function formsOf(html: string): HtmlForm[] {
  const page = html.slice(0, MAX_PAGE_CHARS);
  const forms: HtmlForm[] = [];
  for (const f of page.matchAll(/<form\b([^>]*)>([\s\S]*?)(?:<\/form\s*>|$)/gi)) {
    const attrs = attributes(f[1]!);
    const form: HtmlForm = { method: (attrs.get('method') ?? 'get').toLowerCase(), fields: [], buttons: [] };
    if (attrs.has('action')) form.action = attrs.get('action')!;
    for (const c of f[2]!.matchAll(/<button\b([^>]*)>([\s\S]*?)<\/button\s*>|<input\b([^>]*)>/gi)) {
      const tag = c[3] === undefined ? 'button' : 'input';
      const a = attributes(c[1] ?? c[3]!);
      const name = a.get('name');
      const type = tag === 'button' ? (a.get('type') ?? 'submit').toLowerCase() : (a.get('type') ?? 'text').toLowerCase();
      if (a.has('disabled')) continue;
      if (type === 'submit' || type === 'image') {
        form.buttons.push({ name: name ?? '', value: a.get('value') ?? '', type: tag === 'button' ? 'button' : type, label: tag === 'button' ? textOf(c[2] ?? '') : (a.get('value') ?? '') });
        continue;
      }
      if (name === undefined || name === '' || type === 'button' || type === 'reset' || type === 'file') continue;
      if ((type === 'checkbox' || type === 'radio') && !a.has('checked')) continue;
      form.fields.push({ name, value: a.get('value') ?? (type === 'checkbox' || type === 'radio' ? 'on' : ''), type });
    }
    forms.push(form);
  }
  return forms;
}

const APPROVE = /\b(approve|allow|accept|authori[sz]e|consent|grant|continue|yes|confirm)\b/i;
const REFUSE = /\b(deny|denied|reject|refuse|cancel|decline|no)\b/i;

/** Whether a button (its name, value or label) says it approves, and does not say it refuses. */
const approves = (b: FormField & { label: string }) => {
  const words = `${b.label} ${b.name} ${b.value}`;
  return APPROVE.test(words) && !REFUSE.test(words);
};

/**
 * The form and button a user who approves would press: a form whose submit button says it
 * approves (or a form with one unnamed submit button and no refusing one). Undefined when the
 * page offers no such form.
 */
export function approvalOf(forms: readonly HtmlForm[]): { form: HtmlForm; button?: FormField } | undefined {
  for (const form of forms) {
    const button = form.buttons.find(approves);
    if (button) return { form, button };
  }
  const lone = forms.find((f) => f.method === 'post' && f.buttons.length <= 1 && !f.buttons.some((b) => REFUSE.test(`${b.label} ${b.name} ${b.value}`)));
  return lone ? { form: lone, ...(lone.buttons[0] ? { button: lone.buttons[0] } : {}) } : undefined;
}

/** What a submission of `form` pressing `button` sends: its fields, then the button's name and value if it has a name. */
export function submission(form: HtmlForm, button?: FormField): URLSearchParams {
  const body = new URLSearchParams();
  for (const f of form.fields) body.append(f.name, f.value);
  if (button && button.name !== '') body.append(button.name, button.value);
  return body;
}

/** The page's text (tags removed, references decoded), for finding what it shows a user. */
export function pageText(html: string): string {
  return textOf(html.slice(0, MAX_PAGE_CHARS).replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' '));
}
