import { isObject, META, MODERN, type RecordedFrame, replyFrame, scenario, type Scenario, show } from '../kit.js';
import { callablePlans, quickArguments } from './helpers.js';

// Per-request log level (server/utilities/logging.mdx#per-request-log-level): logging/setLevel is
// gone; a server sends notifications/message for a request only when its _meta carries
// io.modelcontextprotocol/logLevel, and then only at that level or more severe.

const MAX_TOOLS = 8;
/** RFC 5424 levels, least severe first (LOG-LVL-01). */
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

function logMessages(frames: RecordedFrame[]): Array<Record<string, unknown>> {
  return frames.map((f) => f.message).filter((m): m is Record<string, unknown> => isObject(m) && m.method === 'notifications/message');
}

export const perRequestLogLevel = scenario({
  id: 'server.modern.logging.per-request',
  title: 'A server sends no notifications/message for a request without logLevel, and none less severe than the logLevel a request names',
  requirements: ['LOG-REQ-01', 'LOG-REQ-02'],
  isolation: 'shared',
  revisions: MODERN,
  needs: { capabilities: ['tools'] },
  async run({ session, check, discovery, options }) {
    const plans = callablePlans(discovery, options.callTools).slice(0, MAX_TOOLS);
    if (plans.length === 0) {
      check.skip(`not exercised: no tool may be called (--call-tools ${options.callTools.mode})`, { key: 'without-level', requirements: ['LOG-REQ-01'] });
      check.skip(`not exercised: no tool may be called (--call-tools ${options.callTools.mode})`, { key: 'below-level', requirements: ['LOG-REQ-02'] });
      return;
    }
    const called = plans.map((p) => p.name).join(', ');
    const round = async (meta: Record<string, unknown>) => {
      const mark = session.mark;
      const frames: Array<number | undefined> = [];
      for (const plan of plans) frames.push(replyFrame(await session.request('tools/call', { name: plan.name, arguments: quickArguments(plan), _meta: meta })));
      await session.settle(50);
      return { logs: logMessages(session.peerFrames(mark)), frames };
    };
    const bare = await round({});
    check.expect(bare.logs.length === 0, {
      key: 'without-level',
      requirements: ['LOG-REQ-01'],
      expected: `no notifications/message while calling ${called} without _meta["${META.logLevel}"]`,
      actual: `${bare.logs.length} log message(s), e.g. ${show(bare.logs[0], 200)}`,
      frames: bare.frames,
    });
    const errorOnly = await round({ [META.logLevel]: 'error' });
    const below = errorOnly.logs.filter((m) => isObject(m.params) && LEVELS.indexOf(String(m.params.level)) < LEVELS.indexOf('error'));
    check.expect(below.length === 0, {
      key: 'below-level',
      requirements: ['LOG-REQ-02'],
      expected: `calling ${called} with logLevel "error": no log message less severe than error`,
      actual: `${below.length} such message(s), e.g. ${show(below[0], 200)}`,
      frames: errorOnly.frames,
    });
  },
});

export const modernLogging: Scenario[] = [perRequestLogLevel];
