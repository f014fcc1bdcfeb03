import { describeReply, isObject, isStrictBase64, list, parseUriTemplate, type Reply, replyFrame, ruling, scenario, show } from '../kit.js';
import { asksForInput, budget, EMPTY_RESULT, isEmptyResult } from './helpers.js';

const MAX_READS = 20;

// ---- Scenarios -------------------------------------------------------------------------------

export const resourceList = scenario({
  id: 'server.resources.list',
  title: 'resources/list lists resources, each with a uri and a name',
  requirements: ['RES-LIST-01'],
  isolation: 'shared',
  // It judges what discovery listed, which both eras list alike.
  carriedOver: true,
  needs: { capabilities: ['resources'] },
  async run({ check, discovery }) {
    const walk = discovery.walks['resources/list'];
    // Only the rule's own fields: the rest of the Resource schema (URI format …) is checked live.
    const bad: string[] = [];
    for (const r of discovery.resources) {
      if (typeof r.uri !== 'string') bad.push(`${show(r.name, 60)}: uri is ${show(r.uri, 40)}`);
      else if (typeof r.name !== 'string') bad.push(`${show(r.uri, 60)}: name is ${show(r.name, 40)}`);
    }
    const walked = walk !== undefined && ['complete', 'loop', 'limit'].includes(walk.end);
    check.expect(walked && bad.length === 0, {
      expected: 'resources/list walked to its end, every resource with a string uri and name',
      actual: !walked ? `the walk ended with "${walk?.end ?? 'not run'}"${walk?.lastReply ? `: ${describeReply(walk.lastReply)}` : ''}` : `${bad.length} of ${discovery.resources.length} malformed: ${list(bad)}`,
    });
  },
});

/** Problems with one resources/read result, as text. */
function contentsProblems(result: Record<string, unknown>): string[] {
  const contents = result.contents;
  if (!Array.isArray(contents)) return [`contents is ${show(contents, 40)}, not an array`];
  const problems: string[] = [];
  contents.forEach((c, i) => {
    if (!isObject(c)) return problems.push(`contents[${i}] is ${show(c, 40)}`);
    if (typeof c.uri !== 'string') problems.push(`contents[${i}] has no string uri`);
    const text = 'text' in c;
    const blob = 'blob' in c;
    if (text === blob) problems.push(`contents[${i}] has ${text ? 'both text and blob' : 'neither text nor blob'}`);
    if (text && typeof c.text !== 'string') problems.push(`contents[${i}].text is ${show(c.text, 40)}`);
    if (blob && (typeof c.blob !== 'string' || !isStrictBase64(c.blob))) problems.push(`contents[${i}].blob is not strict base64: ${show(c.blob, 40)}`);
    return undefined;
  });
  return problems;
}

export const resourceRead = scenario({
  id: 'server.resources.read',
  title: 'Each listed resource can be read: contents with a uri and text or a base64 blob',
  requirements: ['RES-READ-01'],
  isolation: 'shared',
  carriedOver: true,
  needs: { capabilities: ['resources'] },
  async run({ session, check, discovery }) {
    const uris = discovery.resources.map((r) => r.uri).filter((u): u is string => typeof u === 'string');
    if (uris.length === 0) return check.skip('the server lists no resources');
    const reads: Array<{ uri: string; reply: Reply }> = [];
    const time = budget(20_000);
    for (const uri of uris.slice(0, MAX_READS)) {
      if (time.spent()) break;
      reads.push({ uri, reply: await session.request('resources/read', { uri }, time.timeout(5_000)) });
    }
    const askedForInput = reads.filter((r) => asksForInput(r.reply));
    if (askedForInput.length) check.note(`asked for input first (an InputRequiredResult, judged by server.modern.mrtr.*, not here): ${list(askedForInput.map((r) => show(r.uri, 80)))}`);
    const answered = reads.filter((r) => r.reply.kind === 'result' && !asksForInput(r.reply));
    const unread = reads.filter((r) => r.reply.kind !== 'result');
    const bad: Array<{ uri: string; problem: string; frame: number }> = [];
    for (const r of answered) {
      if (r.reply.kind !== 'result') continue;
      const problems = contentsProblems(r.reply.result);
      if (problems.length) bad.push({ uri: r.uri, problem: problems[0]!, frame: r.reply.frame });
    }
    check.expect(bad.length === 0, {
      key: 'contents',
      expected: `a ReadResourceResult for ${answered.length} resource(s) (of ${uris.length} listed; ${reads.length} read, at most ${MAX_READS} within 20 s): contents items with a uri and either text or a strict base64 blob`,
      actual: list(bad.map((b) => `${show(b.uri, 80)}: ${b.problem}`)),
      frames: bad.map((b) => b.frame),
    });
    check.expect(unread.length === 0, {
      key: 'readable',
      level: 'SHOULD',
      expected: 'every listed resource readable (a listed resource that cannot be read is suspect, not proof of a violation)',
      actual: list(unread.map((r) => `${show(r.uri, 80)} → ${describeReply(r.reply)}`)),
      frames: unread.map((r) => replyFrame(r.reply)),
    });
  },
});

export const resourceTemplates = scenario({
  id: 'server.resources.templates',
  title: 'resources/templates/list gives templates with a name and an RFC 6570 uriTemplate',
  requirements: ['RES-TPL-01'],
  isolation: 'shared',
  // It judges what discovery listed, which both eras list alike.
  carriedOver: true,
  needs: { capabilities: ['resources'] },
  async run({ check, discovery }) {
    const walk = discovery.walks['resources/templates/list'];
    if (walk?.lastReply?.kind === 'error' && walk.pages === 0) {
      return check.skip(`not exercised: resources/templates/list is not served (${describeReply(walk.lastReply)}), so there are no templates to check`);
    }
    if (walk?.end === 'complete' && discovery.resourceTemplates.length === 0) return check.skip('not exercised: the server lists no resource templates');
    const bad: string[] = [];
    for (const t of discovery.resourceTemplates) {
      const label = show(t.name ?? t.uriTemplate, 60);
      if (typeof t.name !== 'string') bad.push(`${label}: name is ${show(t.name, 40)}`);
      if (typeof t.uriTemplate !== 'string') {
        bad.push(`${label}: uriTemplate is ${show(t.uriTemplate, 40)}`);
        continue;
      }
      const parsed = parseUriTemplate(t.uriTemplate);
      if (!parsed.ok) bad.push(`${show(t.uriTemplate, 80)}: ${parsed.error}`);
    }
    const walked = walk !== undefined && ['complete', 'loop', 'limit'].includes(walk.end);
    check.expect(walked && bad.length === 0, {
      expected: `resources/templates/list walked to its end (${discovery.resourceTemplates.length} template(s)), each with a name and a uriTemplate that parses as RFC 6570`,
      actual: !walked ? `the walk ended with "${walk?.end ?? 'not run'}"${walk?.lastReply ? `: ${describeReply(walk.lastReply)}` : ''}` : list(bad),
    });
  },
});

export const resourceSubscribe = scenario({
  id: 'server.resources.subscribe',
  title: 'Subscribing to and unsubscribing from a listed resource each return {}',
  requirements: ['RES-SUB-01'],
  isolation: 'shared',
  needs: { capabilities: ['resources.subscribe'] },
  async run({ session, check, discovery }) {
    const uri = discovery.resources.map((r) => r.uri).find((u): u is string => typeof u === 'string');
    if (uri === undefined) return check.skip('the server lists no resource to subscribe to');
    const sub = await session.request('resources/subscribe', { uri });
    check.expect(isEmptyResult(sub), { key: 'subscribe', expected: `resources/subscribe ${show(uri)}: an empty result ${EMPTY_RESULT}`, actual: describeReply(sub), frames: [replyFrame(sub)], replies: [sub] });
    const unsub = await session.request('resources/unsubscribe', { uri });
    check.expect(isEmptyResult(unsub), { key: 'unsubscribe', expected: `resources/unsubscribe ${show(uri)}: an empty result ${EMPTY_RESULT}`, actual: describeReply(unsub), frames: [replyFrame(unsub)], replies: [unsub] });
  },
});

const MISSING = [
  { key: 'custom-scheme', uri: 'mcpcheck://does-not-exist/x' },
  { key: 'file', uri: 'file:///mcpcheck-missing' },
];

export const resourceMissing = scenario({
  id: 'server.resources.missing',
  title: 'Reading a resource that does not exist gets −32002 (resource not found)',
  requirements: ['RES-ERR-01'],
  isolation: 'shared',
  // RES-ERR-01 became RES-ERR-02 (−32602 at MUST, −32002 retired).
  revisions: { removed: '2026-07-28' },
  needs: { capabilities: ['resources'] },
  async run({ session, check }) {
    for (const { key, uri } of MISSING) {
      const reply = await session.request('resources/read', { uri });
      if (reply.kind === 'error' && reply.error.code === -32602) {
        check.expect(true, { key, expected: `resources/read ${show(uri)}: −32002, or −32602, accepted (it is the code of the 2026-07-28 revision; ${ruling('resource-not-found-32602').cite})`, actual: '−32602', frames: [reply.frame] });
        continue;
      }
      check.errorCode(reply, [-32002], { key, what: `resources/read ${show(uri)} (no such resource)` });
    }
  },
});

/** RES-ERR-02 (replaces RES-ERR-01 in 2026-07-28): −32602 at MUST, −32002 retired (BASE-ERR-08); never empty contents (RES-ERR-04). */
export const modernResourceMissing = scenario({
  id: 'server.modern.resources.missing',
  title: 'Reading a resource that does not exist gets −32602, never an empty contents array',
  requirements: ['RES-ERR-02', 'RES-ERR-04'],
  isolation: 'shared',
  revisions: { introduced: '2026-07-28' },
  needs: { capabilities: ['resources'] },
  async run({ session, check }) {
    for (const { key, uri } of MISSING) {
      const reply = await session.request('resources/read', { uri });
      const empty = reply.kind === 'result' && Array.isArray(reply.result.contents) && reply.result.contents.length === 0;
      if (empty) {
        check.expect(false, { key, requirements: ['RES-ERR-04'], expected: `resources/read ${show(uri)} (no such resource): −32602, never an empty contents array`, actual: describeReply(reply), frames: [reply.frame] });
        continue;
      }
      check.errorCode(reply, [-32602], { key, requirements: ['RES-ERR-02'], what: `resources/read ${show(uri)} (no such resource)` });
    }
  },
});

export const resources = [resourceList, resourceRead, resourceTemplates, resourceSubscribe, resourceMissing, modernResourceMissing];
