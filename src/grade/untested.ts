import type { CheckResult, UntestedArea } from '../model.js';
import { allRequirements, bindsRole, catalogOf, findRequirement, isRequirementId, requirementIn, type Role } from '../spec/catalog.js';
import { eraOf, isRevision, LATEST_STATEFUL_REVISION, type Revision } from '../spec/revisions.js';

/**
 * What a run did not test. Every report lists it, so a clean report is never read as "the whole
 * specification holds": it holds for what was tested.
 */

/** The commands that grade a run. */
export type RunKind = 'server' | 'client' | 'validate' | 'proxy' | 'fuzz';

interface KnownGap extends UntestedArea {
  /** The runs whose reports it concerns (all when absent). */
  runs?: RunKind[];
}

/** Why a command that judges no OAuth flow lists authorization's areas. */
const NOT_BY_THIS_COMMAND = 'not judged by this command (AUTH-*): `mcpcheck server --url` judges a protected server, `mcpcheck client` an HTTP client\'s OAuth flow and `mcpcheck authorization --url` an authorization server';

/**
 * What mcpcheck does not test yet. An `area` that is a catalog area is listed (with this reason)
 * only by a run with no check in it; the others cut across areas and are always listed.
 */
export const UNTESTED_AREAS: readonly KnownGap[] = [
  { area: 'Authorization', why: NOT_BY_THIS_COMMAND, runs: ['validate', 'proxy', 'fuzz'] },
  { area: 'Authorization — client credentials extension', why: NOT_BY_THIS_COMMAND, runs: ['validate', 'proxy', 'fuzz'] },
  {
    area: 'Authorization, in part',
    why: 'of a protected server, the metadata of the authorization servers it names is not judged, nor, unless the run is given them (--expired-token-env, --other-audience-token-env, --narrow-token-env, --other-user-token-env, --broad-token-env), an expired or another audience\'s token (AUTH-TOKEN-03/05), one with too little scope (AUTH-ERR-02/03), another user\'s (sessions and state handles bound to their user: SEC-SESS-03, SEC-HANDLE-03) or one holding a parent scope (scope hierarchies: AUTH-ERR-04); a metadata URL on another host than the server\'s is never fetched',
    runs: ['server'],
  },
  {
    area: 'Authorization, in part',
    why: 'of an HTTP client\'s OAuth flow, the Client ID Metadata Document it names is never fetched (its members are not judged, only its URL), and these are not judged: a move to another authorization server between two runs of the client (only one within a run is: AUTH-BIND-01/02, AUTH-TOKEN-04), and (2026-07-28) whether the client refuses authorization URLs of other schemes (SEC-AUTHURL-01: refusing one looks the same as failing to open it) or OAuth URLs on private addresses (SEC-SSRF-*: mcpcheck serves loopback only)',
    runs: ['client'],
  },
  {
    area: 'Tasks — experimental, in part',
    why: 'of the tasks utility of 2025-11-25 (TASK-*): whether a server that cannot tell requestors apart should serve tasks/list (TASK-SEC-03), whether it pages tasks/list at all (the SHOULD of TASK-LIST-01; its MUST, a nextCursor while tasks remain, is judged), input_required of a tool that does not say it asks for input (server.tasks.input-required starts a task of one that does, holds its first request and judges that alone), and the ttl it grants (TASK-TTL-02, beyond the schema) are not judged, nor task isolation between users (TASK-SEC-01) but on a protected server with another user\'s token (--other-user-token-env)',
    runs: ['server'],
  },
  {
    area: 'Tasks — extension, in part',
    why: 'of the tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks), a server that advertises it is judged on task handles and −32021 for clients that did not declare it, tasks/get, tasks/update and tasks/cancel (answers, unknown ids, a stray input key), the status machine, inputRequests keys, the result of the tasks it runs, the entropy of task ids, and a listen stream for one task (no progress or log message on it: TASK-NOTIF-04); not a tool\'s isError result ending a task completed rather than failed (TASK-ERR-04 judges the result a completed task holds) or, but on a protected server with another user\'s token (--other-user-token-env), authorization per task (TASK-SEC-06)',
    runs: ['server'],
  },
  {
    area: 'Tasks — experimental, in part',
    why: 'of the tasks utility of 2025-11-25 (TASK-*), a client is offered a tool that must be called as a task and judged on that call (TASK-TOOL-03), the interval of its polls (TASK-POLL-01), going after the outcome without status notifications (TASK-NOTIF-02) and calling tasks/result on input_required (TASK-IR-03); and, as the receiver of a task-augmented elicitation or sampling request where it declares that, on tasks/result giving what the request would have (TASK-RES-01), unknown task ids (TASK-ERR-01) and, where it declares tasks.cancel, cancelling an ended and a working task (TASK-CANCEL-01/02/03), and the cursors it sends back when asked to list tasks (TASK-LIST-02); how it lists the tasks it holds, and input_required inside a task it runs are not judged',
    runs: ['client'],
  },
  {
    area: 'Tasks — extension, in part',
    why: 'of the tasks extension of 2026-07-28, mcpcheck client serves one scripted task to a client that declares the extension (a handle followed to its result, its pollIntervalMs, input answered by tasks/update, a handle for prompts/get refused); not task status notifications through subscriptions/listen, cancellation by the client, or a task that fails',
    runs: ['client'],
  },
  {
    area: 'Tasks — experimental, in part',
    why: 'of the tasks utility of 2025-11-25 (TASK-*), the status machine, timestamps and related-task metadata of task results are judged, and where a requestor asks for a task; not the related-task metadata of the requests and notifications a task sends outside server.tasks.input-required (TASK-META-01), the pages of tasks/list or task isolation. Of the tasks extension of 2026-07-28, what its traffic shows is judged (task handles, tasks/get, tasks/update and tasks/cancel, the status machine, inputRequests keys, and no progress or log message on a listen stream for tasks: TASK-NOTIF-04, where the message carries its subscriptionId)',
    runs: ['validate', 'proxy', 'fuzz'],
  },
  { area: 'parts of the client suite', why: '`mcpcheck client` judges what a client fetches for icons (schemes, redirects, credentials) and whether hostile data: bytes harm it, not which image types it draws or how it sniffs them (ICON-MIME-*, ICON-SEC-03); nor how it reacts to tools/list_changed, which no client rule governs', runs: ['client'] },
  { area: 'revision 2026-07-28, in part', why: 'mcpcheck fuzz fuzzes one era per run (a dual-era server in 2026-07-28, unless --spec-version 2025-11-25 names the other); in 2026-07-28 it opens subscriptions/listen over stdio only, cancels no call over HTTP (the era cancels by closing the stream), sends no Mcp-Param-* headers, and retries multi round-trip requests of tools/call only', runs: ['fuzz'] },
  {
    area: 'revision 2026-07-28, in part',
    why: 'tools/call of the carried scenarios is made without client capabilities, so a tool that needs one is refused with −32021 there (the multi round-trip scenario calls it with them); cancellation by closing a stream (HTTP-CANCEL-01), the keep-alive of a quiet listen stream (HTTP-SSE-12), the end of a subscription over HTTP (SUBS-END-*, judged on stdio only) and a requestState replayed by another principal or after a long delay (MRTR-SEC-02) are not judged',
    runs: ['server'],
  },
  {
    area: 'revision 2026-07-28, in part',
    why: 'of the initialize era\'s client scenarios pagination, the tool call, the server dying mid-call, the server\'s stderr and an unknown notification run against a 2026 client, not schemas, icons, the HTTP transport ones, stdio shutdown or properties; of an unknown resultType (BASE-RES-06) only a retry storm is seen, not whether the client surfaced an error; a re-probe once the cached era fails (VER-BC-04), the stdio fallback on −32000 or silence (STDIO-BC-02/03 are judged on −32601 and −32602), extensions other than tasks (EXT-NEG-01) and, over HTTP, the end of a subscription by closing its stream (SUBS-CANCEL-01), the acknowledged filter (SUBS-ACK-03) and re-listening (SUBS-RECON-01) are not judged',
    runs: ['client'],
  },
  {
    area: 'Streamable HTTP, in part',
    why: 'through mcpcheck proxy --url the headers, statuses and content types of each exchange are judged (HTTP-POST-01/02/03/05, HTTP-GET-01/02, HTTP-VER-01/02, HTTP-SESS-03/04, and HDR-* on a 2026-07-28 POST), the priming event and unique event ids of SSE streams (HTTP-SSE-01, HTTP-RESUME-01) and no response on a GET stream that resumes nothing (HTTP-GET-04); not the replays of a resumed stream (HTTP-RESUME-02…), error statuses (HTTP-POST-04), the end of a session (HTTP-SESS-06/08) or Origin checks; with --stdio, no HTTP',
    runs: ['proxy'],
  },
  { area: 'fuzzing, in part', why: 'sequences send no completion/complete, prompts/get or resources/read and call only the tools --call-tools allows; in 2025-11-25 they declare no client capability (the server\'s roots, sampling and elicitation requests are not exercised)', runs: ['fuzz'] },
];

/** What a run could have tested, beside the checks it reports. */
export interface UntestedContext {
  run: RunKind;
  /** The catalog areas some check of this command judges for the role (`coverableAreas`, src/grade/coverage.ts). */
  coverable: ReadonlySet<string>;
  /** --only/--skip left checks of the command out. */
  selected: boolean;
}

function whyUntested(area: string, context: UntestedContext): string {
  if (!context.coverable.has(area)) return `mcpcheck ${context.run} has no check for it`;
  if (context.selected) return 'no check of it was selected (--only/--skip)';
  return "no check of this run judged it: the target's traffic never exercised its rules";
}

/**
 * The catalog areas (binding the role) that no check of the run cites, in catalog order, then the
 * known gaps that cut across areas. An area whose checks all skipped is not in it: those checks and
 * their reasons are in the report already.
 */
export function untestedAreas(checks: readonly CheckResult[], role: Role | undefined, context: UntestedContext): UntestedArea[] {
  const known = new Map(UNTESTED_AREAS.filter((g) => g.runs === undefined || g.runs.includes(context.run)).map((g) => [g.area, g.why]));
  const catalogAreas = new Set<string>();
  const untested: UntestedArea[] = [];
  for (const catalog of catalogsOf(checks)) {
    const rows = eraOf(catalog) === 'stateful' ? allRequirements() : catalogOf(catalog);
    const areaOf = (id: string) => (!isRequirementId(id) ? undefined : eraOf(catalog) === 'stateful' ? findRequirement(id)?.area : requirementIn(id, catalog)?.area);
    const tested = new Set(checks.filter((c) => catalogOfCheck(c) === catalog).flatMap((c) => c.requirements.map(areaOf)));
    // The stateless era's areas say which catalog they are of: a dual-era run lists both.
    const named = (area: string) => (eraOf(catalog) === 'stateful' ? area : `${area} (${catalog})`);
    for (const r of rows) catalogAreas.add(r.area);
    const bound = new Set(rows.filter((r) => role === undefined || bindsRole(r, role)).map((r) => r.area));
    untested.push(...[...bound].filter((area) => !tested.has(area)).map((area) => ({ area: named(area), why: known.get(area) ?? whyUntested(area, context) })));
  }
  for (const gap of UNTESTED_AREAS) {
    if (!catalogAreas.has(gap.area) && (gap.runs === undefined || gap.runs.includes(context.run))) untested.push({ area: gap.area, why: gap.why });
  }
  return untested;
}

/** The catalog a check was judged by: 2026-07-28's for a check of the stateless era, else 2025-11-25's. */
function catalogOfCheck(c: CheckResult): Revision {
  return isRevision(c.revision) && eraOf(c.revision) === 'stateless' ? c.revision : LATEST_STATEFUL_REVISION;
}

/** The catalogs a run's checks were judged by, the initialize era's first (that one alone for a run with no check). */
function catalogsOf(checks: readonly CheckResult[]): Revision[] {
  const catalogs = new Set<Revision>(checks.map(catalogOfCheck));
  if (catalogs.size === 0) catalogs.add(LATEST_STATEFUL_REVISION);
  return [...catalogs].sort();
}
