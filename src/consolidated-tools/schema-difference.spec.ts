import { schemaDifference } from './schema-difference';

describe('schemaDifference', () => {
  const schema = {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
    required: ['city', 'days'],
  };

  it('finds none between equal schemas, whatever the order of keys or of required', () => {
    expect(
      schemaDifference(schema, {
        required: ['days', 'city'],
        properties: { days: { type: 'integer' }, city: { type: 'string' } },
        type: 'object',
      }),
    ).toBeNull();
  });

  it('names the path of a changed type', () => {
    expect(
      schemaDifference(schema, {
        ...schema,
        properties: { ...schema.properties, days: { type: 'string' } },
      }),
    ).toBe('properties.days.type is "integer" here and "string" in the other schema');
  });

  it('names a property only one side has, and a required entry only one side lists', () => {
    expect(
      schemaDifference(schema, {
        ...schema,
        properties: { ...schema.properties, units: { type: 'string' } },
      }),
    ).toBe('properties.units is only in the other schema');
    expect(schemaDifference(schema, { ...schema, required: ['city'] })).toBe(
      'required lists "days" only here',
    );
  });
});
