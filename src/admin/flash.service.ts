import { Injectable } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { SecretSettings } from '../config/slices/secrets.settings';
import { ServerSettings } from '../config/slices/server.settings';
import { cookieOptions } from '../auth/admin-session.service';
import { parseCookies } from '../common/cookie-header';
import { deriveKey, signValue, verifyValue } from '../common/signed-value';

const FLASH_COOKIE = 'portico_flash';
const FLASH_SECONDS = 120;

export type FlashKind = 'success' | 'error' | 'info';

export interface Flash {
  kind: FlashKind;
  text: string;
}

/**
 * One message carried across a redirect in a short-lived signed cookie, so that it survives
 * landing on another replica.
 */
@Injectable()
export class FlashMessages {
  private readonly key: Buffer;

  constructor(
    secrets: SecretSettings,
    private readonly server: ServerSettings,
  ) {
    this.key = deriveKey(secrets.jwtSecret, 'admin-flash');
  }

  set(request: Request, response: Response, kind: FlashKind, text: string): void {
    response.cookie(FLASH_COOKIE, signValue(this.key, { kind, text: text.slice(0, 1000) }), {
      ...cookieOptions(this.server, request, '/admin'),
      maxAge: FLASH_SECONDS * 1000,
    });
  }

  /** The pending message, cleared so that it shows once. */
  take(request: Request, response: Response): Flash | null {
    const value = parseCookies(request.headers.cookie).get(FLASH_COOKIE);
    if (!value) return null;
    response.clearCookie(FLASH_COOKIE, cookieOptions(this.server, request, '/admin'));
    const flash = verifyValue(this.key, value) as Partial<Flash> | null;
    if (
      typeof flash?.text !== 'string' ||
      (flash.kind !== 'success' && flash.kind !== 'error' && flash.kind !== 'info')
    ) {
      return null;
    }
    return { kind: flash.kind, text: flash.text };
  }
}
