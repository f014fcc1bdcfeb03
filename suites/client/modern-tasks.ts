import { type ClientScenario, clientScenario, isObject, MODERN, type RecordedFrame, show, TASKS_EXTENSION } from '../kit.js';
import { methodOf, WAIT_MS } from './helpers.js';
import { declaresTasks, handledCall, INPUT_KEY, noHandle, polls, serveTask, TASK_ID, TASK_TOOL, taskAs } from './modern-task-helpers.js';

// The tasks extension of 2026-07-28 (io.modelcontextprotocol/tasks), the client's side: mcpcheck
// advertises it and answers a call of its task tool with a task handle; a client that declared the
// extension follows the task with tasks/get at the suggested interval to its end, answers what the
// task asks for with tasks/update, and takes a handle for a request the extension does not cover as
// invalid. One rule each; its tasks/update and headers are judged by live validation too.

const CALL_TASK_TOOL = [{ do: 'call-tool' as const, name: TASK_TOOL.name, arguments: { topic: 'mcpcheck' } }];
/** How long the client is given to follow a task it was handed to its end. */
const FOLLOW_MS = 10_000;

export const clientTakesHandle = clientScenario({
  id: 'client.modern.tasks.handle',
  title: 'A client that declared the tasks extension takes a task handle for its tools/call and follows the task with tasks/get to its result',
  requirements: ['TASK-NEG-05'],
  revisions: MODERN,
  steps: CALL_TASK_TOOL,
  serve: (session) => serveTask(session, { statuses: ['working', 'working', 'completed'], pollIntervalMs: 100 }),
  async run({ session, check }) {
    const call = await handledCall(session);
    if (!call) return check.skip(noHandle(session));
    const done = await session.waitForFrame(() => polls(session).length >= 3, FOLLOW_MS);
    check.expect(done !== undefined, {
      expected: `after the task handle answering ${TASK_TOOL.name} (task ${show(TASK_ID)}), tasks/get of it until it shows completed (the third poll)`,
      actual: `${polls(session).length} tasks/get of the task within ${FOLLOW_MS} ms`,
      frames: [call.index, ...polls(session).map((f) => f.index)],
    });
  },
});

/** The interval mcpcheck suggests, and how much sooner than it a poll may come (timer granularity, the client's own clock). */
const POLL_INTERVAL_MS = 600;
const POLL_SLACK = 0.85;

export const clientPollInterval = clientScenario({
  id: 'client.modern.tasks.poll-interval',
  title: 'A client follows a task at the pollIntervalMs it is given, and keeps polling until the task ends',
  requirements: ['TASK-POLL-02'],
  revisions: MODERN,
  steps: CALL_TASK_TOOL,
  serve: (session) => serveTask(session, { statuses: ['working', 'working', 'working', 'completed'], pollIntervalMs: POLL_INTERVAL_MS }),
  async run({ session, check }) {
    const call = await handledCall(session);
    if (!call) return check.skip(noHandle(session));
    await session.waitForFrame(() => polls(session).length >= 4, FOLLOW_MS + 4 * POLL_INTERVAL_MS);
    const seen = polls(session);
    if (seen.length < 2) return check.skip(`not exercised: the client sent ${seen.length} tasks/get of the task (TASK-NEG-05 judges following it)`, { frames: seen.map((f) => f.index) });
    const gaps = seen.slice(1).map((f, i) => f.at - seen[i]!.at);
    const short = gaps.filter((g) => g < POLL_INTERVAL_MS * POLL_SLACK);
    check.expect(short.length === 0 && seen.length >= 4, {
      expected: `tasks/get of the task at least ${POLL_INTERVAL_MS} ms apart (its pollIntervalMs; ${Math.round(POLL_INTERVAL_MS * POLL_SLACK)} ms tolerated), until it showed completed (the fourth poll)`,
      actual: `${seen.length} polls, ${gaps.map((g) => `${Math.round(g)} ms`).join(', ')} apart`,
      frames: seen.map((f) => f.index),
    });
  },
});

export const clientAnswersTaskInput = clientScenario({
  id: 'client.modern.tasks.input',
  title: 'A client that sees its task input_required answers the inputRequests with tasks/update, then follows the task to its end',
  requirements: ['TASK-UPD-01'],
  revisions: MODERN,
  steps: CALL_TASK_TOOL,
  serve: (session) => serveTask(session, { statuses: ['working', 'input_required'], pollIntervalMs: 100 }),
  async run({ session, check }) {
    const call = await handledCall(session);
    if (!call) return check.skip(noHandle(session));
    const asked = await session.waitForFrame(() => polls(session).length >= 2, FOLLOW_MS);
    if (!asked) return check.skip(`not exercised: the client did not poll the task until it asked for input (TASK-NEG-05 judges following it)`);
    const isUpdate = (f: RecordedFrame) => methodOf(f) === 'tasks/update' && isObject(f.message) && isObject(f.message.params) && isObject(f.message.params.inputResponses) && INPUT_KEY in f.message.params.inputResponses;
    const update = await session.waitForFrame(isUpdate, FOLLOW_MS);
    const after = update ? await session.waitForFrame((f) => f.index > update.index && polls(session, update.index).length > 0, FOLLOW_MS) : undefined;
    check.expect(update !== undefined && after !== undefined, {
      expected: `after tasks/get showed the task input_required asking for ${show(INPUT_KEY)} (a form elicitation), a tasks/update answering ${show(INPUT_KEY)}, then tasks/get of the task again`,
      actual: update ? (after ? 'both' : 'the tasks/update, then no tasks/get of the task') : `no tasks/update answering ${show(INPUT_KEY)} within ${FOLLOW_MS} ms`,
      frames: [asked.index, ...(update ? [update.index] : []), ...(after ? [after.index] : [])],
    });
  },
});

/** A prompt mcpcheck answers with a task handle, which the extension does not allow for prompts/get. */
const TASK_PROMPT = { name: 'mcpcheck_task_prompt', description: 'mcpcheck answers it with a task handle (not a supported request type of the tasks extension).' };
const FOREIGN_TASK = 'mcpcheck-foreign-task-1';

export const clientRefusesForeignHandle = clientScenario({
  id: 'client.modern.tasks.foreign-handle',
  title: 'A client that gets a task handle for prompts/get (a request type the tasks extension does not cover) takes it as an invalid response: it does not poll it',
  requirements: ['TASK-NEG-06'],
  revisions: MODERN,
  steps: [{ do: 'get-prompt', name: TASK_PROMPT.name }, { do: 'list-tools' }],
  serve: (session) => {
    serveTask(session, { statuses: ['completed'], pollIntervalMs: 100 });
    session.capabilities = { ...session.capabilities, prompts: {} };
    session.handle('prompts/list', () => ({ result: { prompts: [TASK_PROMPT] } }));
    session.handle('prompts/get', (_params, request) => {
      if (!declaresTasks(request)) return { result: { messages: [{ role: 'user', content: { type: 'text', text: 'mcpcheck' } }] } };
      return { result: { resultType: 'task', ...taskAs(FOREIGN_TASK, 'working', 100) } };
    });
  },
  async run({ session, check }) {
    const get = await session.waitForMethod('prompts/get', WAIT_MS);
    if (!get) return check.skip(`the client never called prompts/get ${TASK_PROMPT.name}`);
    if (!declaresTasks(get.message)) return check.skip(`not exercised: the client's prompts/get did not declare ${TASKS_EXTENSION}, so mcpcheck answered it plainly`);
    // The client's next step (tools/list) shows it went on; anything it polled by then is in.
    const next = await session.waitForMethod('tools/list', WAIT_MS, get.index);
    if (!next) return check.skip(`not exercised: the client sent nothing after the handle within ${WAIT_MS} ms (its next step is tools/list), so whether it would poll does not show`);
    const polled = session.requestsFor('tasks/get').filter((f) => isObject(f.message) && isObject(f.message.params) && f.message.params.taskId === FOREIGN_TASK);
    check.expect(polled.length === 0, {
      expected: `no tasks/get of ${show(FOREIGN_TASK)}, the handle mcpcheck gave prompts/get (invalid there: only tools/call may be answered with one)`,
      actual: polled.length ? `${polled.length} tasks/get of it` : 'none',
      frames: [get.index, ...polled.map((f) => f.index), next.index],
    });
  },
});

export const clientModernTasks: ClientScenario[] = [clientTakesHandle, clientPollInterval, clientAnswersTaskInput, clientRefusesForeignHandle];
