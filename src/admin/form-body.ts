/** A urlencoded form body: repeated names arrive as arrays. */
export type FormBody = Record<string, string | string[] | undefined>;

/** The field's value (the first, if repeated), or ''. */
export function formField(body: FormBody | undefined, name: string): string {
  const value = body?.[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** Every value of a repeated field, such as checkboxes. */
export function formFields(body: FormBody | undefined, name: string): string[] {
  const value = body?.[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/** A checkbox is sent only when ticked. */
export function formCheckbox(body: FormBody | undefined, name: string): boolean {
  return formFields(body, name).length > 0;
}

/** Non-empty trimmed lines of a textarea. */
export function formLines(body: FormBody | undefined, name: string): string[] {
  return formField(body, name)
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}
