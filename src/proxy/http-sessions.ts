import { TextDecoder } from 'node:util';
import { join } from 'node:path';
import { createParser, type EventSourceParser } from 'eventsource-parser';
import { obj, parseObject } from '../json.js';
import { headersRedacted, pathRedacted } from '../redact.js';
import { parseJson, type Parsed } from '../transport/common.js';
import { mediaType } from '../transport/http-util.js';
import { eraOfRequest } from '../transcript/eras.js';
import { TranscriptStream } from '../transcript/stream.js';
import { judgeClientExchange } from '../validate/client-http.js';
import { checkModernRequestHeaders } from '../validate/modern-headers.js';
import { judgeServerAnswer, responseOnGetStream } from '../validate/server-http.js';
import { type Finding, show, violation } from '../validate/finding.js';
import { findingsIn, judgedRevision } from '../validate/in-revision.js';
import { sseEventFindings } from '../validate/sse.js';
import { appliesIn } from '../spec/catalog.js';
import type { RequirementId } from '../spec/requirement-id.js';
import type { Exchange, ExchangeTap } from './http-reverse.js';
import { type JudgedTraffic, TrafficJudge } from './traffic-judge.js';

/** A body larger than this is forwarded but not judged. */
const MAX_JUDGED_BYTES = 16 * 1024 * 1024;
/** Client connections whose session is remembered. */
const MAX_CONNECTIONS = 10_000;
/** SSE event ids remembered per session, to tell a resumed stream's replays from new events. */
const MAX_EVENT_IDS = 100_000;

export interface HttpSessionsOptions {
  /** The path of the MCP endpoint (the `--url`'s): exchanges elsewhere (OAuth metadata, say) are forwarded, not judged. */
  endpointPath: string;
  /** A folder for one transcript per session. */
  transcriptDir?: string;
  redact: (text: string) => string;
  /** Each violation as it arises, as one line. */
  onLine: (line: string) => void;
  tellNotes: boolean;
  /** When what is being judged passed the proxy (ms since the epoch). */
  clock?: () => number;
}

/** One session as the proxy saw it: an MCP-Session-Id, or the traffic that carried none. */
class ProxiedSession {
  readonly judge: TrafficJudge;
  readonly transcript: TranscriptStream | undefined;
  /** The exchange whose notifications/initialized the server accepted: the client's initialization was over after it. */
  initializedAt: number | undefined;
  negotiated: string | undefined;
  readonly eventIds = new Set<string>();
  /** GET streams open that resume nothing: a response the server sends meanwhile must not go there (HTTP-GET-04). */
  freshGetStreams = 0;
  /** The client showed it read the answer issuing the id; later, the server answered 404 to it or the client ended it by DELETE. */
  private idShown = false;
  idReleased = false;
  /** Initialized on a connection whose session had ended: a client starting again (ruling session-id-while-held). */
  reestablished = false;

  constructor(
    readonly label: string,
    readonly id: string | undefined,
    o: HttpSessionsOptions,
    file: string | undefined,
  ) {
    this.transcript = file !== undefined ? new TranscriptStream(file, 'http', o.redact) : undefined;
    this.judge = new TrafficJudge({ transport: 'http', ...(this.transcript ? { transcript: this.transcript } : {}), onLine: (line) => o.onLine(`${label}: ${line}`), tellNotes: o.tellNotes, ...(o.clock ? { clock: o.clock } : {}) });
  }

  /**
   * Whether the client owes the id on this request (ruling session-id-while-held): one carrying it
   * or its notifications/initialized shows it read the answer issuing it; one sent before may have
   * left before that answer arrived. A session a client re-established is not judged.
   */
  owesId(x: Exchange, carried: Carried | undefined): boolean {
    if (this.id === undefined) return false;
    if (x.requestHeaders['mcp-session-id'] === this.id || carried?.initialized === true) this.idShown = true;
    return this.idShown && !this.idReleased && !this.reestablished;
  }

  /** The answer to a request carrying the id ended the session: a 404 to it, or the client's DELETE. */
  answered(x: Exchange): void {
    if (this.id === undefined || x.requestHeaders['mcp-session-id'] !== this.id) return;
    if (x.status === 404 || (x.method === 'DELETE' && x.status !== undefined && x.status < 300)) this.idReleased = true;
  }
}

/** What a POST body carried, as the rules need it. */
interface Carried {
  text: string;
  /** The body parsed once, for the judge too. */
  parsed: Parsed;
  messages: Record<string, unknown>[];
  /** The id of the one request it carried, for the frames its answer brings (inResponseTo). */
  requestId?: string | number;
  hasRequest: boolean;
  initialize: boolean;
  initialized: boolean;
  modern: boolean;
}

/** An exchange while it passes. */
interface Passing {
  request: Buffer[];
  requestBytes: number;
  carried?: Carried;
  /** Its body was too large to judge. */
  unread?: boolean;
  /** Its request frames were judged (they go first, once the session is known). */
  routed?: ProxiedSession;
  response: Buffer[];
  responseBytes: number;
  sse?: { parser: EventSourceParser; decoder: TextDecoder; resumed: boolean };
  /** It is a GET's SSE stream to the endpoint, resuming an earlier one or not. */
  getStream?: 'fresh' | 'resumed';
}

export interface JudgedSession {
  label: string;
  judged: JudgedTraffic;
  transcript?: string;
  transcriptProblem?: string;
}

/**
 * Judges the HTTP exchanges a reverse proxy carries, session by session: each POST body as the
 * client's frame, each JSON answer and SSE event as the server's (with the request it answers),
 * a resumed stream's replays once only; and the Streamable HTTP rules of both sides on headers
 * and statuses. An exchange's request is judged when its answer's headers arrive: an initialize
 * belongs to the session its answer opens.
 */
export class HttpSessions implements ExchangeTap {
  private readonly sessions: ProxiedSession[] = [];
  private readonly byId = new Map<string, ProxiedSession>();
  private unnamed: ProxiedSession | undefined;
  private readonly passing = new Map<Exchange, Passing>();
  /** The session each client connection last carried traffic of with its id. */
  private readonly sessionOnConnection = new Map<number, ProxiedSession>();
  /** Exchanges the server could not be reached for. */
  unreached = 0;
  /** What a user setting the proxy up should know (said once each): not findings of either side. */
  readonly setupNotes: string[] = [];
  /** The URL the client is given: the proxy's endpoint. */
  private proxyEndpoint: string | undefined;
  private stopped: string | undefined;

  private readonly clock: () => number;

  constructor(private readonly o: HttpSessionsOptions) {
    this.clock = o.clock ?? Date.now;
  }

  /** The proxy listens: its endpoint is what the client was given. */
  listeningAt(endpoint: string): void {
    this.proxyEndpoint = endpoint;
  }

  requestBody(x: Exchange, chunk: Buffer): void {
    const p = this.state(x);
    p.requestBytes += chunk.length;
    if (p.requestBytes <= MAX_JUDGED_BYTES) p.request.push(chunk);
  }

  requestEnd(x: Exchange): void {
    const p = this.state(x);
    if (x.method !== 'POST' || p.requestBytes === 0) return;
    if (p.requestBytes > MAX_JUDGED_BYTES) {
      p.unread = true;
      return this.o.onLine(`the body of POST #${x.number} is larger than ${MAX_JUDGED_BYTES} bytes: forwarded, not judged`);
    }
    const text = Buffer.concat(p.request).toString('utf8');
    p.request = [];
    p.carried = carriedBy(text);
  }

  response(x: Exchange): void {
    const p = this.state(x);
    const session = this.route(x, p);
    // Told its session is over, the client holds no id until a new initialize is answered: what it
    // sends meanwhile on the connection is no longer that session's.
    if (x.status === 404 && x.requestHeaders['mcp-session-id'] !== undefined) {
      for (const [connection, s] of this.sessionOnConnection) if (s === session) this.sessionOnConnection.delete(connection);
    }
    if (mediaType(x.responseHeaders?.['content-type']) === 'text/event-stream') {
      const inResponseTo = p.carried?.requestId;
      const resumed = x.method === 'GET' && x.requestHeaders['last-event-id'] !== undefined;
      let first = true;
      const parser = createParser({
        onEvent: (e) => {
          // A resumed stream replays events already seen on the stream it resumes: judged once.
          if (e.id !== undefined && resumed && session.eventIds.has(e.id)) return;
          if (this.toEndpoint(x)) this.judgeEvent(session, e, { what: `the SSE stream of ${x.method} #${x.number}`, first: first && x.method === 'POST', resumed, modern: p.carried?.modern === true });
          first = false;
          if (e.id !== undefined && session.eventIds.size < MAX_EVENT_IDS) session.eventIds.add(e.id);
          if (e.data !== '' && this.toEndpoint(x)) this.serverFrame(session, x, p, e.data, inResponseTo, false);
        },
      });
      p.sse = { parser, decoder: new TextDecoder(), resumed };
      if (x.method === 'GET' && this.toEndpoint(x)) {
        p.getStream = resumed ? 'resumed' : 'fresh';
        if (!resumed) session.freshGetStreams++;
      }
    }
  }

  responseBody(x: Exchange, chunk: Buffer): void {
    const p = this.state(x);
    p.responseBytes += chunk.length;
    if (p.sse) p.sse.parser.feed(p.sse.decoder.decode(chunk, { stream: true }));
    else if (p.responseBytes <= MAX_JUDGED_BYTES) p.response.push(chunk);
  }

  responseEnd(x: Exchange): void {
    const p = this.state(x);
    this.passing.delete(x);
    const session = p.routed ?? this.route(x, p);
    if (p.getStream === 'fresh') session.freshGetStreams--;
    const headers = x.responseHeaders ?? {};
    const media = mediaType(headers['content-type']);
    if (!p.sse && media === 'application/json' && p.responseBytes > 0 && this.toEndpoint(x)) {
      if (p.responseBytes > MAX_JUDGED_BYTES) this.o.onLine(`the answer to ${x.method} #${x.number} is larger than ${MAX_JUDGED_BYTES} bytes: forwarded, not judged`);
      else this.serverFrame(session, x, p, Buffer.concat(p.response).toString('utf8'), p.carried?.requestId, (x.status ?? 0) >= 400);
    }
    if (x.status === undefined) return;
    const toEndpoint = this.toEndpoint(x);
    if (!toEndpoint && media === 'application/json' && x.path.startsWith('/.well-known/oauth-protected-resource')) this.resourceNamed(Buffer.concat(p.response).toString('utf8'));
    const { applied, findings } = judgeServerAnswer({
      exchange: x.number,
      method: x.method,
      toEndpoint,
      ...(p.carried ? { carried: p.carried.hasRequest ? ('request' as const) : ('no request' as const) } : {}),
      status: x.status,
      headers,
      body: p.responseBytes > 0,
      modern: p.carried?.modern === true,
    });
    session.judge.outside('server', applied, findings);
    if (p.carried?.initialized && x.status < 300) session.initializedAt ??= x.number;
    if (this.toEndpoint(x)) session.answered(x);
  }

  /**
   * Protected Resource Metadata passing through names the server's own URL as the resource, not the
   * proxy's the client was given (the proxy rewrites nothing): a client that compares them may stop
   * there. Said once, as a note on the setup.
   */
  private resourceNamed(text: string): void {
    const resource = parseObject(text)?.resource;
    if (typeof resource !== 'string' || this.proxyEndpoint === undefined || resource === this.proxyEndpoint || this.setupNotes.length > 0) return;
    const line = `the server's Protected Resource Metadata names its resource ${JSON.stringify(resource)}, while the client was given ${this.proxyEndpoint}: the proxy rewrites nothing, so a client that checks the resource against the URL it was given may refuse to go on (a setup matter, not a finding)`;
    this.setupNotes.push(line);
    this.o.onLine(line);
  }

  unreachable(x: Exchange, why: string): void {
    this.unreached++;
    this.o.onLine(`${x.method} #${x.number}: the server could not be reached (${why}); the client was answered 502`);
  }

  /** Judges nothing more of any session, for this reason (the forwarder gave up on a backlog). */
  stop(why: string): void {
    this.stopped ??= why;
    for (const s of this.sessions) s.judge.stop(why);
  }

  /** Ends every session: judges what is left, closes the transcripts. */
  async finish(): Promise<JudgedSession[]> {
    for (const [x, p] of this.passing) if (!p.routed) this.route(x, p);
    this.passing.clear();
    const out: JudgedSession[] = [];
    for (const s of this.sessions) {
      const judged = s.judge.finish();
      const problem = await s.transcript?.close();
      out.push({ label: s.label, judged, ...(s.transcript ? { transcript: s.transcript.path } : {}), ...(problem !== undefined ? { transcriptProblem: problem } : {}) });
    }
    return out;
  }

  private state(x: Exchange): Passing {
    let p = this.passing.get(x);
    if (!p) this.passing.set(x, (p = { request: [], requestBytes: 0, response: [], responseBytes: 0 }));
    return p;
  }

  private toEndpoint(x: Exchange): boolean {
    return x.path.split('?')[0] === this.o.endpointPath;
  }

  /** The session of the exchange, its request frames judged there (once), with the client's HTTP rules. */
  private route(x: Exchange, p: Passing): ProxiedSession {
    if (p.routed) return p.routed;
    const asked = x.requestHeaders['mcp-session-id'];
    const issued = p.carried?.initialize ? x.responseHeaders?.['mcp-session-id'] : undefined;
    // A request without the session id, on a connection that carried a session's traffic, is that
    // client's (which then owed the id, HTTP-SESS-04); a modern one belongs to no session.
    const known = asked === undefined && issued === undefined && !p.carried?.initialize && !p.carried?.modern ? this.sessionOnConnection.get(x.connection) : undefined;
    const session = asked !== undefined ? this.named(asked) : issued !== undefined ? this.named(issued) : (known ?? this.withoutId());
    if (issued !== undefined && this.sessionOnConnection.get(x.connection)?.idReleased === true) session.reestablished = true;
    if (session.id !== undefined) {
      this.sessionOnConnection.delete(x.connection);
      this.sessionOnConnection.set(x.connection, session);
      // The oldest connections first: bounded on a proxy that runs for days.
      if (this.sessionOnConnection.size > MAX_CONNECTIONS) this.sessionOnConnection.delete(this.sessionOnConnection.keys().next().value!);
    }
    p.routed = session;
    session.transcript?.exchange({
      exchange: x.number,
      method: x.method,
      path: pathRedacted(x.path),
      ...(x.status !== undefined ? { status: x.status } : {}),
      requestHeaders: headersRedacted(x.requestHeaders),
      ...(x.responseHeaders ? { responseHeaders: headersRedacted(x.responseHeaders) } : {}),
      time: new Date(this.clock()).toISOString(),
    });
    // Elsewhere (OAuth metadata, a wrong path) is forwarded, not judged as MCP traffic.
    if (!this.toEndpoint(x)) return session;
    if (p.carried) session.judge.message('client', p.carried.text, { exchange: x.number, parsed: p.carried.parsed });
    if (p.unread) session.judge.unread('client');
    this.judgeRequest(session, x, p.carried);
    return session;
  }

  private judgeRequest(session: ProxiedSession, x: Exchange, carried: Carried | undefined): void {
    if (carried?.modern) {
      for (const message of carried.messages) {
        const applied = new Set<string>();
        const findings = checkModernRequestHeaders(x.requestHeaders, message, undefined, applied);
        session.judge.outside('client', [...applied], findings);
      }
      return;
    }
    const { applied, findings } = judgeClientExchange(
      { exchange: x.number, method: x.method, headers: x.requestHeaders, toEndpoint: true, ...(carried?.initialize ? { initialize: true as const } : {}), ...(carried?.parsed.ok ? { messages: carried.messages.length } : {}) },
      { afterInitialize: session.initializedAt !== undefined && x.number > session.initializedAt, ...(session.negotiated !== undefined ? { negotiated: session.negotiated } : {}), sessionHeld: session.owesId(x, carried) },
    );
    session.judge.outside('client', applied, findings);
  }

  /**
   * HTTP-SSE-01 and HTTP-RESUME-01 on an event of the server's stream (sseEventFindings, as
   * mcpcheck's own HTTP client judges them), in the session's revision: the priming event is
   * expected once a version with it was negotiated, and not in the stateless era.
   */
  private judgeEvent(session: ProxiedSession, e: { id?: string; data: string }, o: { what: string; first: boolean; resumed: boolean; modern: boolean }): void {
    const revision = judgedRevision(session.negotiated);
    const primingExpected = session.negotiated !== undefined && !o.modern;
    const exercised: RequirementId[] = [...(o.first && primingExpected ? (['HTTP-SSE-01'] as const) : []), ...(e.id !== undefined && !o.resumed && !o.modern && session.eventIds.size > 0 ? (['HTTP-RESUME-01'] as const) : [])];
    const applied = exercised.filter((id) => appliesIn(id, revision));
    const findings = sseEventFindings(e, { what: o.what, first: o.first, primingExpected, resumed: o.resumed, seen: (id) => session.eventIds.has(id) });
    session.judge.outside('server', applied, findingsIn(findings, revision));
  }

  /**
   * HTTP-GET-04 (responseOnGetStream): a response on a GET stream that resumes nothing is a
   * violation. The rule is exercised by what passes on such a stream, and by an answer the server
   * sent on a POST while one was open (it went where it belonged).
   */
  private judgeGetStream(session: ProxiedSession, x: Exchange, p: Passing, parsed: Parsed): void {
    const revision = judgedRevision(session.negotiated);
    if (session.negotiated === undefined || !appliesIn('HTTP-GET-04', revision) || (p.getStream === undefined && session.freshGetStreams === 0)) return;
    const findings: Finding[] = [];
    if (p.getStream !== undefined) {
      if (parsed.ok && responseOnGetStream(parsed.value, p.getStream === 'resumed')) {
        findings.push(violation('HTTP-GET-04', `expected no JSON-RPC response on the SSE stream of GET #${x.number}, which resumes no earlier stream; got a ${'error' in (parsed.value as object) ? 'error' : 'result'} response with id ${show((parsed.value as Record<string, unknown>).id)}`));
      }
      if (p.getStream === 'resumed') return session.judge.outside('server', [], findings);
    }
    session.judge.outside('server', ['HTTP-GET-04'], findings);
  }

  /** A message the server sent: parsed once, for what the tap reads of it and for the judge. */
  private serverFrame(session: ProxiedSession, x: Exchange, p: Passing, text: string, inResponseTo: string | number | undefined, errorStatus: boolean): void {
    const parsed = parseJson(text);
    if (p.carried?.initialize && session.negotiated === undefined) {
      const version = obj(obj(parsed.ok ? parsed.value : undefined)?.result)?.protocolVersion;
      if (typeof version === 'string') session.negotiated = version;
    }
    this.judgeGetStream(session, x, p, parsed);
    session.judge.message('server', text, { exchange: x.number, parsed, ...(inResponseTo !== undefined ? { inResponseTo } : {}), errorStatus });
  }

  private named(id: string): ProxiedSession {
    let s = this.byId.get(id);
    if (!s) this.byId.set(id, (s = this.open(`session ${this.sessions.length + 1}`, id)));
    return s;
  }

  private withoutId(): ProxiedSession {
    return (this.unnamed ??= this.open('traffic without a session id', undefined));
  }

  private open(label: string, id: string | undefined): ProxiedSession {
    const n = this.sessions.length + 1;
    const file = this.o.transcriptDir !== undefined ? join(this.o.transcriptDir, `${String(n).padStart(3, '0')}-${id !== undefined ? 'session' : 'no-session-id'}.jsonl`) : undefined;
    const s = new ProxiedSession(label, id, this.o, file);
    if (this.stopped !== undefined) s.judge.stop(this.stopped);
    this.sessions.push(s);
    return s;
  }
}

function carriedBy(text: string): Carried {
  const parsed = parseJson(text);
  const value = parsed.ok ? parsed.value : undefined;
  const messages = (Array.isArray(value) ? value : [value]).map((m) => obj(m)).filter((m): m is Record<string, unknown> => m !== undefined);
  const requests = messages.filter((m) => typeof m.method === 'string' && 'id' in m);
  const one = requests.length === 1 && !Array.isArray(value) ? requests[0]!.id : undefined;
  return {
    text,
    parsed,
    messages,
    ...(typeof one === 'string' || typeof one === 'number' ? { requestId: one } : {}),
    hasRequest: requests.length > 0,
    initialize: requests.some((m) => m.method === 'initialize'),
    initialized: messages.some((m) => m.method === 'notifications/initialized'),
    modern: messages.some((m) => eraOfRequest(m) === 'stateless'),
  };
}
