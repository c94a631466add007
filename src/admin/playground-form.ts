import { type FormBody, formField } from './form-body';
import { type InvokeResultView } from './invoke-result-view';
import { type PlaygroundAppView } from './playground-app';
import { type PlaygroundResume } from './playground.service';
import { formArguments, type FormField, schemaForm } from './schema-form';
import { checkToolArguments } from './tool-arguments';
import { isJsonObject } from '../common/json-value';

/** Questions of one input round the page shows at most; a round never has more in practice. */
const MAX_QUESTIONS = 16;
const MESSAGE_LIMIT = 4_000;

/** One question of a call's input round (a policy's approval, an upstream's elicitation). */
export interface InputQuestion {
  key: string;
  message: string;
  /** The answer's fields, drawn from its requested schema; null for one without content. */
  fields: FormField[] | null;
  /** Whether the page can answer it: form elicitation only (not sampling, roots or a URL). */
  answerable: boolean;
}

/** The questions of an `input_required` result's `inputRequests`, as the page asks them. */
export function inputQuestions(inputRequests: unknown): InputQuestion[] {
  if (!isJsonObject(inputRequests)) return [];
  return Object.entries(inputRequests)
    .slice(0, MAX_QUESTIONS)
    .map(([key, request], index) => {
      const { method, params } = isJsonObject(request) ? request : {};
      const asked = isJsonObject(params) ? params : {};
      const form =
        method === 'elicitation/create' && (asked.mode === undefined || asked.mode === 'form');
      const message = typeof asked.message === 'string' ? asked.message : '';
      return {
        key,
        message: form
          ? message.slice(0, MESSAGE_LIMIT)
          : `The call asks for ${typeof method === 'string' ? method.slice(0, 100) : 'something'}${asked.mode === 'url' ? ' (a URL to open)' : ''}, which the playground cannot answer: decline it, or use an MCP client.`,
        fields: form
          ? schemaForm(
              isJsonObject(asked.requestedSchema)
                ? asked.requestedSchema
                : { type: 'object', properties: {} },
              {},
              `input${index}.`,
            )
          : null,
        answerable: form,
      };
    });
}

/**
 * The `inputResponses` of the retry: each question accepted with what its fields hold, or
 * declined (a question the page cannot answer is always declined).
 */
export function inputResponses(
  questions: InputQuestion[],
  accept: boolean,
  body: FormBody,
): Record<string, unknown> {
  return Object.fromEntries(
    questions.map((question) => {
      if (!accept || !question.answerable) return [question.key, { action: 'decline' }];
      const content = question.fields ? formArguments(question.fields, body).arguments : {};
      return [question.key, { action: 'accept', content }];
    }),
  );
}

/** What the call form posted, and what came of it, for the page to show again. */
export interface CallOutcome {
  arguments: Record<string, unknown>;
  json: string;
  mode: 'form' | 'json';
  error?: string;
  result?: InvokeResultView;
  app?: PlaygroundAppView | null;
  /** The questions the call asks before it goes on, and what its retry must carry. */
  input?: {
    questions: InputQuestion[];
    requestState: string;
    inputRequests: string;
    sent: string;
  };
}

/** The arguments of a new call: from the form drawn from the schema, or from the raw JSON. */
export function argumentsOf(
  body: FormBody,
  inputSchema: Record<string, unknown>,
): { outcome: CallOutcome; args: Record<string, unknown> | null } {
  const fields = schemaForm(inputSchema);
  if (formField(body, 'mode') !== 'json' && fields) {
    const read = formArguments(fields, body);
    const outcome: CallOutcome = {
      arguments: read.arguments,
      json: pretty(read.arguments),
      mode: 'form',
    };
    if (read.ok) return { outcome, args: read.arguments };
    outcome.error = read.error;
    return { outcome, args: null };
  }
  const typed = formField(body, 'json');
  const parsed = checkToolArguments(typed, {});
  if (parsed.ok)
    return {
      outcome: { arguments: parsed.arguments, json: typed, mode: 'json' },
      args: parsed.arguments,
    };
  return { outcome: { arguments: {}, json: typed, mode: 'json', error: parsed.error }, args: null };
}

/**
 * The retry of a call that asked for input: the arguments it was sent with (its sealed state is
 * bound to them, so other ones are refused by the core) and the person's answers.
 */
export function resumeOf(
  body: FormBody,
  requestState: string,
): { outcome: CallOutcome; args: Record<string, unknown> | null; resume: PlaygroundResume } {
  const sent = checkToolArguments(formField(body, 'sent'), {});
  const args = sent.ok ? sent.arguments : null;
  let asked: unknown = null;
  try {
    asked = JSON.parse(formField(body, 'inputRequests'));
  } catch {
    // Nothing to answer with: every question is declined, and the core says what that means.
  }
  const questions = inputQuestions(asked);
  return {
    outcome: {
      arguments: args ?? {},
      json: pretty(args ?? {}),
      mode: 'form',
      ...(sent.ok ? {} : { error: sent.error }),
    },
    args,
    resume: {
      requestState,
      inputResponses: inputResponses(questions, formField(body, 'answer') === 'accept', body),
    },
  };
}

export function pretty(args: Record<string, unknown>): string {
  return JSON.stringify(args, null, 2);
}
