import { validateDto } from '../common/validation';
import { GatewayCreateDto } from '../gateways/dto/gateway-create.dto';
import { gatewayInput, parseEnvLines, parseHeaderLines } from './gateway-form';

describe('gateway form', () => {
  it('turns the OpenAPI fields into the REST create body, the selection from its lines', async () => {
    const { input, errors } = gatewayInput(
      {
        name: 'Pets',
        url: 'http://127.0.0.1:8001/v2',
        transport: 'openapi',
        authType: 'none',
        openapiUrl: ' http://127.0.0.1:8001/openapi.json ',
        openapiMethods: 'get, head post',
        openapiIncludePaths: '/pets/**\n\n/store/*',
        openapiExcludeTags: 'admin',
      },
      false,
    );
    expect(errors).toEqual({});
    expect(input).toMatchObject({
      transport: 'openapi',
      openapiUrl: 'http://127.0.0.1:8001/openapi.json',
      openapiSelection: {
        methods: ['GET', 'HEAD', 'POST'],
        includeTags: [],
        excludeTags: ['admin'],
        includePaths: ['/pets/**', '/store/*'],
        excludePaths: [],
      },
    });
    await expect(validateDto(GatewayCreateDto, input)).resolves.toBeInstanceOf(GatewayCreateDto);
    const wrong = gatewayInput({ ...input, openapiMethods: 'FETCH' }, false).input;
    await expect(validateDto(GatewayCreateDto, wrong)).rejects.toBeDefined();
  });

  it('turns the fields into the REST create body', async () => {
    const { input, errors } = gatewayInput(
      {
        name: ' Gateway 1 ',
        url: 'http://127.0.0.1:8001/mcp',
        transport: 'sse',
        authType: 'bearer',
        token: 's3cret',
      },
      false,
    );
    expect(errors).toEqual({});
    expect(input).toEqual({
      name: 'Gateway 1',
      url: 'http://127.0.0.1:8001/mcp',
      transport: 'sse',
      pinning: 'off',
      quarantineOnFinding: null,
      eraPin: 'auto',
      auth: { type: 'bearer', token: 's3cret' },
    });
    await expect(validateDto(GatewayCreateDto, input)).resolves.toBeInstanceOf(GatewayCreateDto);
  });

  it('sends the pinning mode and the finding threshold, none for an empty choice', async () => {
    const fields = { name: 'G', url: 'http://h/mcp', authType: 'none' };
    const pinned = gatewayInput(
      { ...fields, pinning: 'review', quarantineOnFinding: 'medium' },
      false,
    ).input;
    expect(pinned).toMatchObject({ pinning: 'review', quarantineOnFinding: 'medium' });
    await expect(validateDto(GatewayCreateDto, pinned)).resolves.toBeInstanceOf(GatewayCreateDto);
    const bad = gatewayInput({ ...fields, pinning: 'always', quarantineOnFinding: 'x' }, false);
    await expect(validateDto(GatewayCreateDto, bad.input)).rejects.toThrow();
  });

  it('turns the OAuth fields into the REST auth, leaving out what is blank', async () => {
    const { input, errors } = gatewayInput(
      {
        name: 'G',
        url: 'http://127.0.0.1:8001/mcp',
        authType: 'oauth',
        oauthMode: 'client-credentials',
        oauthClientId: ' machine ',
        oauthClientSecret: 'shh',
        oauthScope: '',
      },
      false,
    );
    expect(errors).toEqual({});
    expect(input.auth).toEqual({
      type: 'oauth',
      mode: 'client-credentials',
      clientId: 'machine',
      clientSecret: 'shh',
    });
    await expect(validateDto(GatewayCreateDto, input)).resolves.toBeInstanceOf(GatewayCreateDto);
    const incomplete = gatewayInput(
      { name: 'G', url: 'http://h/mcp', authType: 'oauth', oauthMode: 'client-credentials' },
      false,
    ).input;
    await expect(validateDto(GatewayCreateDto, incomplete)).rejects.toThrow();
  });

  it('turns the token exchange fields into the REST auth', async () => {
    const { input, errors } = gatewayInput(
      {
        name: 'G',
        url: 'http://127.0.0.1:8001/mcp',
        authType: 'token-exchange',
        exchangeTokenUrl: ' https://sso.example.com/token ',
        exchangeDialect: 'rfc8693',
        exchangeAudience: 'reports',
        exchangeResource: '',
        exchangeActor: 'on',
        oauthClientId: 'portico',
        oauthClientSecret: 'shh',
        oauthScope: 'reports.read',
      },
      false,
    );
    expect(errors).toEqual({});
    expect(input.auth).toEqual({
      type: 'token-exchange',
      tokenUrl: 'https://sso.example.com/token',
      dialect: 'rfc8693',
      clientAuth: 'client_secret_basic',
      clientId: 'portico',
      clientSecret: 'shh',
      audience: 'reports',
      scope: 'reports.read',
      actor: true,
    });
    await expect(validateDto(GatewayCreateDto, input)).resolves.toBeInstanceOf(GatewayCreateDto);
    const elsewhere = gatewayInput(
      {
        name: 'G',
        url: 'http://h/mcp',
        authType: 'token-exchange',
        exchangeTokenUrl: 'file:///etc/passwd',
        oauthClientId: 'portico',
      },
      false,
    ).input;
    await expect(validateDto(GatewayCreateDto, elsewhere)).rejects.toThrow();
  });

  it('keeps the stored credentials on edit unless others are chosen', () => {
    expect(
      gatewayInput({ name: 'G', url: 'http://h/mcp', authType: 'keep' }, true).input,
    ).not.toHaveProperty('auth');
    expect(
      gatewayInput({ name: 'G', url: 'http://h/mcp', authType: 'keep' }, false).errors,
    ).toHaveProperty('authType');
    expect(
      gatewayInput({ name: 'G', url: 'http://h/mcp', authType: 'none' }, true).input.auth,
    ).toEqual({ type: 'none' });
  });

  it('reads custom headers one per line', () => {
    expect(parseHeaderLines('X-Api-Key: abc:def\r\n\nX-Team:  blue ')).toEqual({
      headers: { 'X-Api-Key': 'abc:def', 'X-Team': 'blue' },
    });
    expect(parseHeaderLines('no colon here')).toEqual({ error: expect.stringMatching(/Line 1/) });
    expect(parseHeaderLines('A: 1\na: 2')).toEqual({ error: expect.stringMatching(/twice/) });
    const { errors } = gatewayInput(
      { name: 'G', url: 'http://h/mcp', authType: 'headers', headers: 'bad' },
      false,
    );
    expect(errors.headers).toMatch(/Header-Name: value/);
  });

  it('turns the stdio fields into the REST body, without URL or credentials', async () => {
    const { input, errors } = gatewayInput(
      {
        name: 'Files',
        url: 'http://ignored/mcp',
        transport: 'stdio',
        authType: 'bearer',
        token: 'ignored',
        command: ' npx ',
        args: '-y\r\n@modelcontextprotocol/server-filesystem\n\n/srv/data with space\n',
        cwd: '/srv',
        env: 'API_KEY=a=b\nEMPTY=',
      },
      false,
    );
    expect(errors).toEqual({});
    expect(input).toEqual({
      name: 'Files',
      transport: 'stdio',
      pinning: 'off',
      quarantineOnFinding: null,
      eraPin: 'auto',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/data with space'],
      cwd: '/srv',
      env: { API_KEY: 'a=b', EMPTY: '' },
    });
    await expect(validateDto(GatewayCreateDto, input)).resolves.toBeInstanceOf(GatewayCreateDto);
    // On edit an empty environment keeps the stored one.
    const edit = gatewayInput(
      { name: 'Files', transport: 'stdio', command: 'npx', env: ' ' },
      true,
    );
    expect(edit.input).not.toHaveProperty('env');
  });

  it('reads NAME=value lines, refusing malformed and repeated ones', () => {
    expect(parseEnvLines('A=1\n\nB=two words')).toEqual({ env: { A: '1', B: 'two words' } });
    expect(parseEnvLines('novalue')).toEqual({ error: 'Line 1 is not of the form "NAME=value".' });
    expect(parseEnvLines('A=1\nA=2')).toEqual({ error: "The variable 'A' is given twice." });
  });
});
