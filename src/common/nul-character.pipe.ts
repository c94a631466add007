import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { RequestValidationException } from './request-validation.exception';

/**
 * PostgreSQL text cannot hold U+0000, so a string with one would fail deep inside a query as a
 * 500. Every body, query and path argument is checked up front and such input refused as a 422.
 */
@Injectable()
export class NulCharacterPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'custom') return value;
    const found = fieldWithNul(value, metadata.type === 'body' ? '' : (metadata.data ?? ''));
    if (found !== null) {
      const property = found || metadata.type;
      throw new RequestValidationException([
        {
          property,
          constraints: { noNul: `${property} must not contain NUL (U+0000) characters` },
          children: [],
        },
      ]);
    }
    return value;
  }
}

/** The path of the first string (or key) holding a NUL, or null. */
function fieldWithNul(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\0') ? path : null;
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, child] of Object.entries(value)) {
    if (key.includes('\0')) return path;
    const found = fieldWithNul(child, path ? `${path}.${key}` : key);
    if (found !== null) return found;
  }
  return null;
}
