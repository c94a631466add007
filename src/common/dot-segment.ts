/** A `.` or `..` segment of a path (a `;` starts a segment's parameters, as some servers read). */
export const DOT_SEGMENT = /(^|\/)\.\.?(\/|;|$)/;

/**
 * Whether a URI's path has a `.` or `..` segment as some upstream might read it: escaped (once or
 * twice), with an escaped slash or any backslash read as a separator, with the tabs and line
 * breaks a URL parser drops (`.\t.` is `..` to it), and in compatibility forms (`．．`).
 */
export function hasDotSegment(uri: string): boolean {
  let read = uri.normalize('NFKC').replace(/[\t\n\r]/g, '');
  for (let round = 0; round < 3 && /%25/i.test(read); round++) read = read.replace(/%25/gi, '%');
  return DOT_SEGMENT.test(read.replace(/%2e/gi, '.').replace(/%2f|%5c|\\/gi, '/'));
}
