import { createHash } from 'node:crypto';

/** The report's only style: inline, so the file works offline and alone. */
export const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:1em;color:#1b1f24;background:#fff}
h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.1em;margin:1.4em 0 .4em}
.headline{font-size:1.15em;font-weight:600;padding:.5em .7em;border-radius:4px;background:#eef6ee}
.headline.bad{background:#fbeaea}
dl.target{display:grid;grid-template-columns:max-content 1fr;gap:.1em 1em;margin:.6em 0}dt{color:#57606a}dd{margin:0;word-break:break-all}
#filters{position:sticky;top:0;background:#fff;border-bottom:1px solid #d0d7de;padding:.5em 0;display:flex;flex-wrap:wrap;gap:.4em 1.2em;align-items:center;z-index:1}
#filters fieldset{border:0;margin:0;padding:0;display:flex;gap:.5em;align-items:center}
#filters legend{float:left;margin-right:.4em;color:#57606a}
#search{min-width:16em}
table{border-collapse:collapse;width:100%}th{text-align:left;color:#57606a;font-weight:500;border-bottom:1px solid #d0d7de}
tbody.check td{border-bottom:1px solid #eaeef2;vertical-align:top;padding:.35em .4em}
tbody.check td:first-child,tbody.check td:nth-child(2){white-space:nowrap;width:1%}
.st{display:inline-block;border-radius:3px;padding:0 .35em;font-size:.85em;font-weight:600}
.st.fail{background:#cf222e;color:#fff}.st.error{background:#8250df;color:#fff}.st.warn{background:#d4a72c;color:#000}.st.pass{background:#1a7f37;color:#fff}.st.skip{background:#d0d7de;color:#000}
.exp{color:#0969da;font-size:.85em}.ti{font-weight:500}.msg{white-space:pre-wrap;word-break:break-word;color:#24292f}
ul.rq,ul.ev{margin:.2em 0;padding-left:1.2em;color:#57606a}ul.ev code{word-break:break-all}
code,pre{font:12px/1.4 ui-monospace,monospace}.re code{word-break:break-all}
details.wire summary{cursor:pointer;color:#0969da}
.log{border-left:3px solid #d0d7de;margin:.3em 0;padding-left:.5em}.lh{color:#57606a;font-style:italic}
.f{margin:.3em 0}.fh{color:#57606a;font-size:.85em}.f.server .fh{color:#0550ae}.f.cited pre{outline:2px solid #d4a72c}
.f pre{margin:0;padding:.3em;background:#f6f8fa;white-space:pre-wrap;word-break:break-all;max-height:24em;overflow:auto}
.k{color:#0550ae}.s{color:#0a3069}.n{color:#953800}.b{color:#8250df}.om{color:#57606a;margin:.2em 0}
[hidden]{display:none!important}
header.verdict{border-left:8px solid #57606a;background:#f6f8fa;padding:.6em 1em;border-radius:4px;margin:.4em 0 1em}
header.verdict.passed{border-color:#1a7f37;background:#eef6ee}header.verdict.failed{border-color:#cf222e;background:#fbeaea}header.verdict.incomplete{border-color:#9a6700;background:#fff8c5}
header.verdict .word{font-size:2.2em;font-weight:700;margin:0;letter-spacing:.05em}header.verdict .meaning{margin:.1em 0 .5em;color:#24292f}
header.verdict.passed .word{color:#1a7f37}header.verdict.failed .word{color:#cf222e}header.verdict.incomplete .word{color:#9a6700}
.verdict .headline{background:none;padding:0;margin:.2em 0}
table.bars th{text-align:left;font-weight:500;white-space:nowrap;padding-right:1em;width:1%}table.bars td{padding:.15em .3em}table.bars td.n{white-space:nowrap;width:1%}
svg.bar{width:100%;height:14px;display:block;background:#eaeef2}
rect.fail{fill:#cf222e}rect.error{fill:#8250df}rect.warn{fill:#d4a72c}rect.pass{fill:#1a7f37}rect.skip{fill:#d0d7de}
article.defect{border:1px solid #d0d7de;border-left:5px solid #d0d7de;border-radius:4px;padding:.4em .8em;margin:.6em 0}
article.defect.fail{border-left-color:#cf222e}article.defect.error{border-left-color:#8250df}article.defect.warn{border-left-color:#d4a72c}
article.defect h3{font-size:1em;margin:.2em 0}ul.rules{margin:.2em 0;padding-left:1.2em}.why{color:#7d4e00;font-size:.9em}
.frames .f pre{max-height:20em}mark{background:#ffe58f;color:inherit}.also,.more{color:#57606a}
details.area>summary{cursor:pointer;list-style-position:outside}details.area>summary h2{display:inline;font-size:1.05em}
`;

/**
 * The report's only script: filters, search, and wire logs cloned from their templates when a
 * check's log is opened. It reads target text only as DOM text (textContent, cloned inert
 * templates); it never parses a string as HTML.
 */
export const SCRIPT = `(() => {
  const all = (sel, root = document) => [...root.querySelectorAll(sel)];
  const form = document.getElementById('filters');
  const search = document.getElementById('search');
  const area = document.getElementById('area');
  const shown = document.getElementById('shown');
  const checks = all('tbody.check');
  // What the search box searches: a check's own text, not the wire logs opened into it.
  const texts = new Map(checks.map((c) => [c, c.textContent.toLowerCase()]));
  const apply = () => {
    const status = new Set(all('input[name=status]:checked').map((i) => i.value));
    const level = new Set(all('input[name=level]:checked').map((i) => i.value));
    const term = search.value.trim().toLowerCase();
    let n = 0;
    for (const c of checks) {
      const ok = status.has(c.dataset.status) && level.has(c.dataset.level) && (area.value === '' || c.dataset.area === area.value) && (term === '' || texts.get(c).includes(term));
      c.hidden = !ok;
      if (ok) n++;
    }
    for (const s of all('section.area')) s.hidden = !s.querySelector('tbody.check:not([hidden])');
    // Narrowed down, the areas holding what is shown are opened; the full list stays closed.
    const narrowed = status.size < 5 || level.size < 3 || area.value !== '' || term !== '';
    if (narrowed) for (const d of all('section.area:not([hidden]) > details.area')) d.open = true;
    shown.textContent = n + ' of ' + checks.length + ' checks shown';
  };
  form.addEventListener('input', apply);
  form.addEventListener('submit', (e) => e.preventDefault());
  document.addEventListener('toggle', (e) => {
    const d = e.target;
    if (!(d instanceof HTMLDetailsElement) || !d.open || !d.dataset.wire || d.dataset.filled) return;
    d.dataset.filled = '1';
    for (const id of d.dataset.wire.split(' ')) {
      const t = document.getElementById('wire-' + id);
      if (t instanceof HTMLTemplateElement) d.append(t.content.cloneNode(true));
    }
    const cited = new Set(d.dataset.cite.split(' ').filter(Boolean));
    for (const f of all('.f', d)) if (cited.has(f.dataset.i)) f.classList.add('cited');
  }, true);
  apply();
})();`;

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * Only the report's own style and script may apply, and nothing may be fetched: should some
 * target text ever slip through as markup, the browser still runs and loads none of it.
 */
export const CSP = `default-src 'none'; script-src ${sha256(SCRIPT)}; style-src ${sha256(STYLE)}; img-src 'none'; base-uri 'none'; form-action 'none'`;
