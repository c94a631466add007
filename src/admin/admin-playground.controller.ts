import { Body, Get, Post, Query, Req, Res } from '@nestjs/common';
import { isUUID } from 'class-validator';
import { type Request, type Response } from 'express';
import { MinRole } from '../auth/auth.decorators';
import { AdminCatalog } from './admin-catalog';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { type FormBody, formField } from './form-body';
import { invokeResultView } from './invoke-result-view';
import { hrefWith } from './pagination';
import { appFrameCsp, PLAYGROUND_PAGE_CSP, playgroundAppOf, uiResourceUri } from './playground-app';
import { argumentsOf, type CallOutcome, inputQuestions, pretty, resumeOf } from './playground-form';
import { Playground, type PlaygroundSight, type PlaygroundTool } from './playground.service';
import { schemaForm } from './schema-form';
import { pageScope } from './team-field';
import { checkToolArguments } from './tool-arguments';

/** Where the playground is: the endpoint and whom to act as, from a query or a form. */
interface PlaygroundPlace {
  /** A server id; '' for `/mcp`. */
  server: string;
  /** A username or id; '' for the signed-in user. */
  as: string;
}

const TOOL_NAME_LIMIT = 4096;

function text(value: unknown, limit = 300): string {
  return typeof value === 'string' ? value.trim().slice(0, limit) : '';
}

function placeOf(source: Record<string, unknown>): PlaygroundPlace {
  return { server: text(source.server), as: text(source.as) };
}

function serverIdOf(place: PlaygroundPlace): string | null {
  return place.server === '' ? null : place.server.toLowerCase();
}

type Found =
  | { ok: true; sight: PlaygroundSight & { ok: true }; tool: PlaygroundTool }
  | { ok: false; error: string };

/**
 * The playground: pick an endpoint and (an admin) a user to act as, see the tools that user's
 * `tools/list` would list, and call one from a form drawn from its input schema, as that user.
 */
@AdminController('admin/playground')
@MinRole('member')
export class AdminPlaygroundController {
  constructor(
    private readonly playground: Playground,
    private readonly catalog: AdminCatalog,
    private readonly pages: AdminPages,
  ) {}

  @Get()
  async index(
    @Req() request: Request,
    @Res() response: Response,
    @Query() query: Record<string, unknown>,
  ): Promise<void> {
    const place = placeOf(query);
    const picked = query.server !== undefined || query.as !== undefined;
    const sight = picked ? await this.sight(request, place) : null;
    const tools = sight?.ok ? await this.playground.tools(sight.seen) : [];
    const servers = await this.catalog.allServers(pageScope(request));
    const actor = request.principal!;
    await this.pages.render(request, response, 'playground', {
      title: 'Playground',
      section: 'playground',
      place,
      isAdmin: actor.role === 'admin',
      actor: actor.name,
      servers: servers.map((server) => ({
        id: server.id,
        name: server.name,
        selected: server.id === place.server,
      })),
      sight,
      tools: tools.map((tool) => ({
        ...tool.judged,
        title: tool.definition.title ?? null,
        description: tool.definition.description ?? '',
        app: uiResourceUri(tool.definition) !== null,
        href: hrefWith('/admin/playground/tool', { ...place, name: tool.judged.name }),
      })),
    });
  }

  @Get('tool')
  async toolForm(
    @Req() request: Request,
    @Res() response: Response,
    @Query() query: Record<string, unknown>,
  ): Promise<void> {
    const place = placeOf(query);
    const name = text(query.name, TOOL_NAME_LIMIT);
    await this.renderTool(request, response, place, await this.found(request, place, name), null);
  }

  /** Calls the tool with the form's arguments (or its raw JSON) as the chosen user. */
  @Post('tool')
  async call(
    @Req() request: Request,
    @Res() response: Response,
    @Body() body: FormBody,
  ): Promise<void> {
    const place = placeOf(body);
    const found = await this.found(request, place, text(formField(body, 'name'), TOOL_NAME_LIMIT));
    if (!found.ok) {
      await this.renderTool(request, response, place, found, null);
      return;
    }
    const { sight, tool } = found;
    const inputSchema = tool.definition.inputSchema as Record<string, unknown>;
    const pending = formField(body, 'requestState');
    const resumed = pending === '' ? null : resumeOf(body, pending);
    const { outcome, args } = resumed ?? argumentsOf(body, inputSchema);
    if (args !== null) {
      const check = checkToolArguments(JSON.stringify(args), inputSchema);
      if (!check.ok) outcome.error = check.error;
      else {
        const called = await this.playground.call(
          request.principal!,
          sight.principal,
          serverIdOf(place),
          tool.judged.name,
          args,
          resumed?.resume,
        );
        switch (called.kind) {
          case 'result':
            outcome.result = invokeResultView(called.result);
            outcome.app = playgroundAppOf(tool.definition, args, called.result, place);
            break;
          case 'input':
            outcome.input = {
              questions: inputQuestions(called.inputRequests),
              requestState: called.requestState,
              inputRequests: JSON.stringify(called.inputRequests),
              sent: JSON.stringify(args),
            };
            break;
          case 'error':
            outcome.error = `The call was refused (${called.code}): ${called.message}`;
        }
      }
    }
    await this.renderTool(request, response, place, found, outcome, outcome.error ? 422 : 200);
  }

  /**
   * An MCP App's UI resource, read as the chosen user (as their host would read it), served as a
   * document of its own with the CSP its declared domains allow, for the playground's sandboxed
   * frame.
   */
  @Get('app')
  async app(
    @Req() request: Request,
    @Res() response: Response,
    @Query() query: Record<string, unknown>,
  ): Promise<void> {
    const place = placeOf(query);
    const uri = text(query.uri, 2048);
    const sight = await this.sight(request, place);
    const app =
      sight.ok && uri.startsWith('ui://')
        ? await this.playground.readApp(request.principal!, sight.principal, serverIdOf(place), uri)
        : null;
    if (!app) {
      response.status(404).type('text/plain').send('No such app for this user here.');
      return;
    }
    response.setHeader('Content-Security-Policy', appFrameCsp(app.meta));
    response.setHeader('X-Frame-Options', 'SAMEORIGIN');
    response.status(200).type('html').send(app.html);
  }

  /**
   * A tool call an MCP App's View makes through the playground's host, as the chosen user: only
   * a backend tool of the framed app's (`app`) gateway, by its hashed name; the core judges it as
   * for their host. JSON in and out; the form's CSRF token comes in the body.
   */
  @Post('app-call')
  async appCall(
    @Req() request: Request,
    @Res() response: Response,
    @Body() body: Record<string, unknown>,
  ): Promise<void> {
    const place = placeOf(body);
    const name = text(body.name, TOOL_NAME_LIMIT);
    const args = body.arguments ?? {};
    const sight = await this.sight(request, place);
    if (!sight.ok || typeof args !== 'object' || args === null || Array.isArray(args)) {
      response.status(200).json({
        error: sight.ok
          ? { code: -32602, message: 'The arguments must be an object.' }
          : { code: -32600, message: sight.error },
      });
      return;
    }
    const called = await this.playground.appCall(
      request.principal!,
      sight.principal,
      serverIdOf(place),
      text(body.app, TOOL_NAME_LIMIT),
      name,
      args as Record<string, unknown>,
    );
    switch (called.kind) {
      case 'result':
        response.status(200).json({ result: called.result });
        return;
      case 'input':
        response.status(200).json({
          error: {
            code: -32600,
            message: `'${name}' asks for input, which the playground answers only for the call made from its form.`,
          },
        });
        return;
      case 'error':
        response.status(200).json({ error: { code: called.code, message: called.message } });
    }
  }

  private async sight(request: Request, place: PlaygroundPlace): Promise<PlaygroundSight> {
    if (place.server !== '' && !isUUID(place.server))
      return { ok: false, error: 'Pick an endpoint from the list.' };
    return this.playground.sight(request.principal!, place.as, serverIdOf(place));
  }

  /** The tool `name` as the chosen user sees it; not found when their list does not list it. */
  private async found(request: Request, place: PlaygroundPlace, name: string): Promise<Found> {
    const sight = await this.sight(request, place);
    if (!sight.ok) return sight;
    const tool = (await this.playground.tools(sight.seen)).find((t) => t.judged.name === name);
    if (!tool)
      return {
        ok: false,
        error: `${sight.seen.principal.name} has no tool named '${name}' to call here.`,
      };
    return { ok: true, sight, tool };
  }

  private async renderTool(
    request: Request,
    response: Response,
    place: PlaygroundPlace,
    found: Found,
    outcome: CallOutcome | null,
    status = 200,
  ): Promise<void> {
    const back = hrefWith('/admin/playground', { ...place });
    if (!found.ok) {
      await this.pages.render(
        request,
        response,
        'playground-tool',
        { title: 'Playground', section: 'playground', place, error: found.error, back },
        404,
      );
      return;
    }
    const { tool, sight } = found;
    const inputSchema = tool.definition.inputSchema as Record<string, unknown>;
    const fields = schemaForm(inputSchema, outcome?.arguments ?? {});
    if (outcome?.app) response.setHeader('Content-Security-Policy', PLAYGROUND_PAGE_CSP);
    await this.pages.render(
      request,
      response,
      'playground-tool',
      {
        title: `Playground: ${tool.judged.name}`,
        section: 'playground',
        place,
        back,
        who: sight.seen.principal,
        endpoint: place.server === '' ? '/mcp' : `/servers/${place.server}/mcp`,
        tool: {
          ...tool.judged,
          title: tool.definition.title ?? null,
          description: tool.definition.description ?? '',
          inputSchema,
        },
        fields,
        formable: fields !== null,
        jsonMode: (outcome?.mode ?? (fields ? 'form' : 'json')) === 'json',
        json: outcome?.json ?? pretty(outcome?.arguments ?? {}),
        outcome,
      },
      status,
    );
  }
}
