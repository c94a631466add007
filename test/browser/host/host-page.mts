import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

type CallResult = Awaited<ReturnType<AppBridge['callTool']>>;

declare global {
  interface Window {
    /** Sends an MCP request to Portico through the test's own client (exposed by the test). */
    porticoRequest(method: string, params: unknown): Promise<unknown>;
    /** Loads a UI resource into a sandboxed iframe and gives it the result of calling `tool`. */
    mountApp(id: string, uri: string, tool: string): Promise<void>;
  }
}

/**
 * A minimal MCP Apps host: the View runs in a sandboxed iframe (scripts only, opaque origin) and
 * talks to the host through the ext-apps AppBridge, which forwards its tool calls to Portico.
 */
window.mountApp = async (id, uri, tool) => {
  const read = (await window.porticoRequest('resources/read', { uri })) as {
    contents: { text: string }[];
  };
  const iframe = document.createElement('iframe');
  iframe.id = id;
  iframe.title = id;
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.srcdoc = read.contents[0]!.text;
  document.body.append(iframe);
  const view = iframe.contentWindow!;
  const bridge = new AppBridge(
    null,
    { name: 'Portico test host', version: '1.0.0' },
    { serverTools: {}, logging: {} },
    { hostContext: { theme: 'light', platform: 'web', displayMode: 'inline' } },
  );
  bridge.oncalltool = (params) =>
    window.porticoRequest('tools/call', params) as Promise<CallResult>;
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(view, view));
  await initialized;
  await bridge.sendToolInput({ arguments: {} });
  const result = (await window.porticoRequest('tools/call', {
    name: tool,
    arguments: {},
  })) as CallResult;
  await bridge.sendToolResult(result);
};
