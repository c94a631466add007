import slugify from 'slugify';

export const SLUG_MAX_LENGTH = 64;

/**
 * The gateway's namespace in virtual tool names: lower-case ASCII letters, digits and '-'.
 * Returns '' when nothing of the name survives, which callers must reject.
 */
export function gatewaySlug(name: string): string {
  return slugify(name, { lower: true, strict: true, trim: true })
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/-+$/, '');
}
