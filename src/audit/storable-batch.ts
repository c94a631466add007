import { getMetadataArgsStorage } from 'typeorm';
import { storableJsonText } from '../common/untrusted-text';
import { AuditEntry } from './audit-entry.entity';

/**
 * The audit entries of one write as the database can store them, whatever the records carried.
 * A client, a login form or an upstream chooses much of what an entry says (a username, a
 * client's name, a tool name, arguments, an error's message), and one entry the database refused
 * would hold back every entry behind it. So each text is cut to its column (a cut may split a
 * surrogate pair), and in the JSON of the batch what PostgreSQL refuses in text and JSON alike
 * goes: a NUL character is removed and an unpaired surrogate becomes U+FFFD, in keys as in values.
 * A status out of the integer column's range is dropped.
 */
export function storableBatch(entries: readonly AuditEntry[]): string {
  return storableJsonText(JSON.stringify(entries.map(storableEntry)));
}

interface BatchColumn {
  property: keyof AuditEntry;
  name: string;
  /** The type a batch's value is read as: the column's, without a text column's length. */
  type: string;
  /** A text column's length, which the value is cut to. */
  limit: number | null;
}

/** The entity's columns, in its order, as a batch carries them (by property name). */
const COLUMNS: readonly BatchColumn[] = getMetadataArgsStorage()
  .columns.filter(({ target }) => target === AuditEntry)
  .map(({ propertyName, options }) => {
    const type = String(options.type);
    const sized = type === 'char' ? `char(${String(options.length)})` : type;
    return {
      property: propertyName as keyof AuditEntry,
      name: options.name ?? propertyName,
      type: options.array ? `${sized}[]` : sized,
      limit: type === 'varchar' ? Number(options.length) : null,
    };
  });
const LIMITED = COLUMNS.filter(({ limit }) => limit !== null);

/** The columns a batch fills, and the same from `json_to_recordset` (the batch's keys, typed). */
export const BATCH_NAMES = COLUMNS.map(({ name }) => name).join(', ');
export const BATCH_VALUES = COLUMNS.map(({ property }) => `"${property}"`).join(', ');
export const BATCH_RECORD = COLUMNS.map(({ property, type }) => `"${property}" ${type}`).join(', ');

const INTEGER_MAX = 2 ** 31 - 1;

/** The entry itself when every column takes it, else a copy that they take. */
function storableEntry(entry: AuditEntry): AuditEntry {
  let storable = entry;
  for (const { property, limit } of LIMITED) {
    const value = entry[property];
    if (typeof value === 'string' && value.length > limit!) {
      if (storable === entry) storable = { ...entry };
      Object.assign(storable, { [property]: value.slice(0, limit!) });
    }
  }
  const { status } = entry;
  if (status !== null && !(Number.isInteger(status) && Math.abs(status) <= INTEGER_MAX))
    storable = { ...storable, status: null };
  return storable;
}
