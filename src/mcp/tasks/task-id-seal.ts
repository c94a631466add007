import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { UpstreamFailure } from '../../upstream/upstream-error';

/** The longest upstream task id Portico wraps; the extension sets no limit, so Portico does. */
export const MAX_UPSTREAM_TASK_ID_CHARS = 512;

const FORMAT = 'pt1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Portico's task id at its longest: an upstream id at its longest, the bindings, the JSON and base64url, generously. */
export const MAX_SEALED_CHARS = Math.ceil((MAX_UPSTREAM_TASK_ID_CHARS * 6 + 1024) * (4 / 3)) + 64;

/** Who a task id was handed to, and where: a request for it must present the same. */
export interface TaskBinding {
  /** The principal's subject. */
  subject: string;
  /** `scopeKey` of the endpoint: `all` or `server:<id>`. */
  scope: string;
}

/** What Portico's task id carries: the upstream that holds the task, its own id, the tool. */
export interface TaskRoute {
  gatewayId: string;
  /** The upstream's own task id, sent back to it unchanged. */
  taskId: string;
  /** The tool's name as the client called it, for the audit trail and to judge the task by. */
  tool: string;
  /** The tool called (a consolidated tool's chosen target); absent from ids sealed before it was kept. */
  toolId?: string;
}

interface Payload {
  v: 1;
  sub: string;
  sc: string;
  gw: string;
  id: string;
  tn: string;
  ti?: string;
}

/** An upstream task id too long to wrap: the upstream's fault, not the client's. */
export class TaskIdTooLong extends UpstreamFailure {
  constructor(chars: number) {
    super(
      'protocol',
      `the upstream's taskId is ${chars} characters, more than ${MAX_UPSTREAM_TASK_ID_CHARS}`,
    );
    this.name = 'TaskIdTooLong';
  }
}

/**
 * The task id Portico hands a client in place of an upstream's: `pt1.<base64url(iv | AES-256-GCM
 * ciphertext | tag)>` of the principal, the endpoint, the gateway, the upstream's id and the tool
 * (its name as called, and its id).
 * Encrypted, because an upstream may use its ids as bearer tokens; authenticated, so that no
 * client can point an id at another upstream or task. Stateless: any replica sharing JWT_SECRET
 * routes `tasks/get`, `tasks/update` and `tasks/cancel` with it, and an id presented by another
 * principal or on another endpoint opens to nothing, as a made-up one does. It carries no expiry
 * of its own: the upstream's task lives as long as the upstream keeps it (`ttlMs`).
 */
export class TaskIdSealer {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'portico', 'portico:mcp-task-id:v1', 32));
  }

  /** Throws TaskIdTooLong when the upstream's id is over MAX_UPSTREAM_TASK_ID_CHARS. */
  seal(binding: TaskBinding, route: TaskRoute): string {
    if (route.taskId.length > MAX_UPSTREAM_TASK_ID_CHARS)
      throw new TaskIdTooLong(route.taskId.length);
    const payload: Payload = {
      v: 1,
      sub: binding.subject,
      sc: binding.scope,
      gw: route.gatewayId,
      id: route.taskId,
      tn: route.tool.slice(0, 256),
      ...(route.toolId === undefined ? {} : { ti: route.toolId }),
    };
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(FORMAT));
    const body = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
    return `${FORMAT}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  /**
   * The route of an id this endpoint handed this principal; null for anything else (altered,
   * sealed with another key, another principal's or endpoint's, or never Portico's), which the
   * client hears of as an unknown task.
   */
  open(id: unknown, binding: TaskBinding): TaskRoute | null {
    if (typeof id !== 'string' || id.length > MAX_SEALED_CHARS) return null;
    const [format, sealed, ...rest] = id.split('.');
    if (format !== FORMAT || !sealed || rest.length > 0) return null;
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) return null;
    let text: string;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(FORMAT));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      text = Buffer.concat([
        decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      return null;
    }
    const payload = parsePayload(text);
    if (!payload || payload.sub !== binding.subject || payload.sc !== binding.scope) return null;
    return {
      gatewayId: payload.gw,
      taskId: payload.id,
      tool: payload.tn,
      ...(typeof payload.ti === 'string' ? { toolId: payload.ti } : {}),
    };
  }
}

/**
 * What the audit trail keeps of a task: the same for every call of it (the tools/call that made
 * it and each tasks/* call), and never the upstream's id itself.
 */
export function taskRef(route: Pick<TaskRoute, 'gatewayId' | 'taskId'>): string {
  return createHash('sha256')
    .update(`${route.gatewayId}\0${route.taskId}`)
    .digest('base64url')
    .slice(0, 22);
}

function parsePayload(text: string): Payload | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const p = value as Record<string, unknown>;
  const strings = ['sub', 'sc', 'gw', 'id', 'tn'].every((k) => typeof p[k] === 'string');
  return p.v === 1 && strings ? (value as Payload) : null;
}
