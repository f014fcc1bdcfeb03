import { asScenario, cookieName, cookieProblems, describeResponse, framingAllowed, idEntropy, isLoopbackHost, pageText, ruling, show } from '../kit.js';
import { authorizeIn, describeOutcome, namedClient, type Outcome, outcomeOf, proxyFlow, staticForward } from './proxy-flow.js';

// An MCP proxy server in front of a third-party authorization server (security best practices,
// "Confused deputy problem"): consent per client before anything is sent on (SEC-PROXY-01), and
// consent cookies and the proxy's own state handled as the page says (SEC-PROXY-02). Judged only of
// a server shown to be such a proxy (proxy-flow.ts); of any other, skips that say why.

export const consent = asScenario({
  id: 'as.proxy.consent',
  title: 'An MCP proxy asks the user before it sends a client\'s authorization on to the third-party authorization server, on a page that names the client, cannot be framed and cannot be approved from another site',
  requirements: ['SEC-PROXY-01'],
  active: true,
  async run(ctx) {
    const flow = await proxyFlow(ctx);
    if (typeof flow === 'string') return ctx.check.skip(flow);
    const { client } = flow;
    ctx.check.expect(!flow.atOnce, {
      key: 'new-client',
      expected: `a consent page for ${show(client.name)}, a client registered a moment ago, before its authorization goes on to the third-party authorization server`,
      actual: `its authorization went on at once, to ${show(flow.forward.origin + flow.forward.pathname, 160)} under client_id ${show(flow.forward.searchParams.get('client_id'))}`,
    });
    const page = flow.page;
    if (!page) {
      for (const key of ['other-client', 'csrf', 'framing', 'shows-client']) ctx.check.skip('not exercised: the proxy showed no consent page', { key });
      return;
    }
    // The confused deputy itself: this browser approved client A; a client registered since must still ask.
    const other = await namedClient(ctx, 'B');
    const second = typeof other === 'string' ? other : await authorizeIn(ctx, other, flow.agent);
    if (typeof other === 'string' || typeof second === 'string') ctx.check.skip(typeof second === 'string' ? second : `not exercised: ${second}`, { key: 'other-client' });
    else if (!staticForward(second.outcome, other) && second.outcome.kind !== 'page') ctx.check.skip(`not exercised: the second client's authorization got ${describeOutcome(second.outcome)}, neither a consent page nor a forward`, { key: 'other-client' });
    else {
      ctx.check.expect(second.outcome.kind === 'page', {
        key: 'other-client',
        expected: `a consent page for ${show(other.name)}, registered after ${show(client.name)} was approved in the same browser (a consent is kept per client)`,
        actual: `its authorization went on at once: ${describeOutcome(second.outcome)}`,
      });
    }
    if (!flow.forged) ctx.check.skip('not exercised: the consent form could not be posted', { key: 'csrf' });
    else {
      ctx.check.expect(!staticForward(flow.forged, client) && flow.forged.kind !== 'client', {
        key: 'csrf',
        expected: `the consent form refused when posted from another site (its Origin, only cookies sent cross-site, without the values only the page carried): CSRF protection (${ruling('proxy-consent').cite})`,
        actual: `it was taken: ${describeOutcome(flow.forged)}`,
      });
    }
    const framing = framingAllowed(page.res.headers);
    ctx.check.expect(framing === undefined, {
      key: 'framing',
      expected: `the consent page forbids framing: X-Frame-Options: DENY or Content-Security-Policy: frame-ancestors 'none' (${ruling('proxy-consent').cite})`,
      actual: `${framing ?? ''} on the page at ${show(page.at.origin + page.at.pathname, 160)}`,
    });
    const text = pageText(page.res.body);
    const missing = [client.name, client.redirectUri].filter((s) => !text.includes(s));
    ctx.check.expect(missing.length === 0, {
      key: 'shows-client',
      expected: `the consent page names the client (${show(client.name)}, its registered client_name) and its redirect URI (${show(client.redirectUri)})`,
      actual: `the page does not show ${missing.map((m) => show(m)).join(' or ')}`,
    });
  },
});

export const cookies = asScenario({
  id: 'as.proxy.cookies',
  title: 'An MCP proxy keeps consent in cookies only its own host can set and read: __Host-, Secure, HttpOnly, SameSite=Lax',
  requirements: ['SEC-PROXY-02'],
  active: true,
  async run(ctx) {
    const flow = await proxyFlow(ctx);
    if (typeof flow === 'string') return ctx.check.skip(flow);
    const approval = flow.approval;
    if (!approval) return ctx.check.skip('not exercised: the proxy asked for no consent');
    const set = approval.res.setCookies;
    if (set.length === 0) return ctx.check.skip('not exercised: the approval set no cookie (consent kept on the server)');
    const bad = set.map((header) => ({ name: cookieName(header), problems: cookieProblems(header) })).filter((c) => c.problems.length > 0);
    ctx.check.expect(bad.length === 0, {
      expected: `every cookie the approval sets (${set.map((h) => show(cookieName(h))).join(', ')}) with the __Host- prefix, Secure, HttpOnly and SameSite=Lax (${ruling('proxy-consent').cite})`,
      actual: bad.map((c) => `${show(c.name)}: ${c.problems.join(', ')}`).join('; '),
    });
  },
});

export const state = asScenario({
  id: 'as.proxy.state',
  title: 'An MCP proxy sends the third party a state of its own, checks it exactly at its callback and takes it once',
  requirements: ['SEC-PROXY-02'],
  active: true,
  async run(ctx) {
    const flow = await proxyFlow(ctx);
    if (typeof flow === 'string') return ctx.check.skip(flow);
    const { client, agent, forward } = flow;
    const cite = ruling('proxy-consent').cite;
    const sent = forward.searchParams.get('state');
    // A client approved already goes on at once: its next authorizations show whether each forward gets a state of its own.
    const states = [sent];
    const clientStates = [...flow.clientStates];
    for (let i = 0; i < 2; i++) {
      const next = await authorizeIn(ctx, client, agent);
      if (typeof next === 'string') break;
      clientStates.push(next.grant.state);
      states.push(next.outcome.kind === 'forward' ? next.outcome.location.searchParams.get('state') : null);
    }
    const theirs = states.filter((s): s is string => s !== null);
    const echoed = theirs.find((s) => clientStates.includes(s));
    const repeated = theirs.find((s, i) => theirs.indexOf(s) !== i);
    ctx.check.expect(sent !== null && echoed === undefined && repeated === undefined, {
      key: 'own-state',
      expected: `a state of the proxy's own on each redirect to the third party: not the client's, new for each authorization (${cite})`,
      actual: sent === null ? 'no state' : echoed !== undefined ? `the client's own state ${show(echoed)}` : `${show(repeated)} for two authorizations`,
    });
    if (theirs.length < 2 || echoed !== undefined || repeated !== undefined) ctx.check.skip(`not exercised: ${theirs.length < 2 ? 'fewer than two authorizations went on to the third party, so what varies in the state cannot be seen' : 'the states are not the proxy\'s own (own-state)'}`, { key: 'unguessable' });
    else {
      const entropy = idEntropy(theirs);
      if (entropy.guessable) ctx.check.expect(false, { key: 'unguessable', expected: `states that cannot be guessed from one another (${cite})`, actual: `states ${show(theirs)}: ${entropy.why}` });
      else ctx.check.skip(`not judged: states ${show(theirs, 300)}: ${entropy.seen}, and whether they come from a cryptographic source cannot be seen from outside (${cite})`, { key: 'unguessable' });
    }
    const callbackBase = forward.searchParams.get('redirect_uri');
    if (!isLoopbackHost(forward.hostname) || callbackBase === null) {
      const why = callbackBase === null ? 'the forward names no redirect_uri to come back to' : `the third-party authorization server ${forward.host} is not on loopback, and mcpcheck sends requests to loopback only`;
      for (const key of ['checked', 'single-use']) ctx.check.skip(`not exercised: ${why}`, { key });
      return;
    }
    // mcpcheck follows the forward as the user's browser, to the third party and back to the proxy's callback.
    const upstream = await agent.visit(forward, (n) => n.href.startsWith(callbackBase));
    const location = upstream.res.headers.location;
    const back = location !== undefined && URL.canParse(location, upstream.at.href) ? new URL(location, upstream.at) : undefined;
    if (!back || !back.href.startsWith(callbackBase) || !isLoopbackHost(back.hostname)) {
      for (const key of ['checked', 'single-use']) ctx.check.skip(`not exercised: the third-party authorization server did not send the browser back to the proxy at once (${describeResponse(upstream.res)}): it asks for a user`, { key });
      return;
    }
    const stop = (n: URL) => n.href.startsWith(client.redirectUri);
    const tampered = new URL(back.href);
    tampered.searchParams.set('state', `${back.searchParams.get('state') ?? ''}mcpcheck`);
    const wrong = outcomeOf(await agent.visit(tampered, stop), client);
    const coded = (o: Outcome) => o.kind === 'client' && o.location.searchParams.has('code');
    const checked = { key: 'checked', expected: 'the callback refused with a state the proxy never sent (the third party\'s code with another state), and taken with its own' };
    if (coded(wrong)) {
      ctx.check.expect(false, { ...checked, actual: `it answered ${describeOutcome(wrong)}` });
      // A callback that takes any state takes a used one too: that is the defect above, shown once.
      return ctx.check.skip('not exercised: the callback takes a state the proxy never sent (see checked), so a second use of one shows nothing more', { key: 'single-use' });
    }
    const genuine = outcomeOf(await agent.visit(back, stop), client);
    // A refusal counts only where the same callback with its own state goes through.
    if (!coded(genuine)) {
      for (const key of ['checked', 'single-use']) ctx.check.skip(`not exercised: the callback with its own state did not send the browser back to the client with a code either (${describeOutcome(genuine)})`, { key });
      return;
    }
    ctx.check.expect(true, { ...checked, actual: `another state: ${describeOutcome(wrong)}; its own: ${describeOutcome(genuine)}` });
    const replay = outcomeOf(await agent.visit(back, stop), client);
    ctx.check.expect(!coded(replay), {
      key: 'single-use',
      expected: 'the same callback refused the second time: its state was used once',
      actual: `the second time it answered ${describeOutcome(replay)}`,
    });
  },
});
