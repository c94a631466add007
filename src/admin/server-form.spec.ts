import { validateDto } from '../common/validation';
import { ServerCreateDto } from '../servers/dto/server-create.dto';
import { serverFormIntent, serverFormValues, serverInput } from './server-form';

describe('server form', () => {
  const a = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b';
  const b = '2c5f39cb-3fb2-4e4c-b4a6-fa2ac6b8744c';

  it('turns ticked tools, checkboxes and name lines into the REST body', async () => {
    const values = serverFormValues({
      name: ' Support ',
      description: 'For the agent',
      enabled: 'on',
      toolIds: [a, b, a],
      alwaysLoaded: 'gw-one\r\n\n  gw-two ',
    });
    const input = serverInput(values);
    expect(input).toEqual({
      name: 'Support',
      description: 'For the agent',
      enabled: true,
      toolIds: [a, b],
      resourceIds: [],
      resourceTemplateIds: [],
      promptIds: [],
      toolSearch: { enabled: false, alwaysLoaded: ['gw-one', 'gw-two'] },
    });
    await expect(validateDto(ServerCreateDto, input)).resolves.toBeInstanceOf(ServerCreateDto);
  });

  it('takes the naming and every kind of member, leaving naming out when the post has none', () => {
    const input = serverInput(
      serverFormValues({
        name: 'S',
        naming: 'original',
        resourceIds: a,
        resourceTemplateIds: [b, b],
        promptIds: [a, b],
      }),
    );
    expect(input).toMatchObject({
      naming: 'original',
      resourceIds: [a],
      resourceTemplateIds: [b],
      promptIds: [a, b],
    });
    expect(serverInput(serverFormValues({ name: 'S' }))).not.toHaveProperty('naming');
  });

  it('reads an unticked checkbox as off and a single tool as a list', () => {
    const values = serverFormValues({ name: 'S', toolIds: a, toolSearchEnabled: 'on' });
    expect(values).toMatchObject({ enabled: false, toolSearchEnabled: true, toolIds: [a] });
  });

  it('saves on Enter unless the search box holds a query not run yet', () => {
    expect(serverFormIntent({ intent: 'search', pickerQ: 'x', pickerShownQ: 'x' })).toBe('search');
    expect(serverFormIntent({ intent: 'enter' })).toBe('save');
    expect(serverFormIntent({ intent: 'enter', pickerQ: ' time ', pickerShownQ: 'time' })).toBe(
      'save',
    );
    expect(serverFormIntent({ intent: 'enter', pickerQ: 'time', pickerShownQ: '' })).toBe('search');
    expect(serverFormIntent({ intent: 'enter', pickerQ: '', pickerShownQ: 'time' })).toBe('search');
    expect(serverFormIntent({ pickerQ: 'time', pickerShownQ: '' })).toBe('save');
    expect(
      serverFormIntent({ intent: 'enter', promptPickerQ: 'greet', promptPickerShownQ: '' }),
    ).toBe('search');
  });
});
