import { Action, Agreement, agreement, queryAction, toolAction } from './intent';

describe('toolAction', () => {
  it('reads the first verb of a name in any identifier style', () => {
    expect(toolAction('get_issue')).toBe(Action.Read);
    expect(toolAction('list_issues')).toBe(Action.List);
    expect(toolAction('search_code')).toBe(Action.Search);
    expect(toolAction('createPullRequest')).toBe(Action.Create);
    expect(toolAction('slack_post_message')).toBe(Action.Send);
    expect(toolAction('kubectl_delete')).toBe(Action.Delete);
    expect(toolAction('update-feature-flag')).toBe(Action.Update);
    expect(toolAction('start_process')).toBe(Action.Run);
  });

  it('reads past an HTTP method to the verb that follows it, as OpenAPI-made names go', () => {
    expect(toolAction('API-post-search')).toBe(Action.Search);
    expect(toolAction('API-post-page')).toBe(Action.Send);
    expect(toolAction('get_file_contents')).toBe(Action.Read);
  });

  it('is null for a name without a verb', () => {
    expect(toolAction('collection-schema')).toBeNull();
  });
});

describe('queryAction', () => {
  it('reads a question as a wish to read', () => {
    expect(queryAction("what's inside config.yaml")).toBe(Action.Read);
    expect(queryAction('are the checks green on PR 42')).toBe(Action.Read);
  });

  it('reads a question for every or all of something as a wish to list', () => {
    expect(queryAction('which channels exist in our slack')).toBe(Action.List);
    expect(queryAction('are there any open incidents')).toBe(Action.List);
  });

  it('takes the first verb past the filler', () => {
    expect(queryAction('could you please make a folder for invoices')).toBe(Action.Create);
    expect(queryAction('email the team that standup moved')).toBe(Action.Send);
    expect(queryAction('run the tests')).toBe(Action.Run);
    expect(queryAction('find every .env file')).toBe(Action.Search);
  });

  it('reads multi-word verbs as the verb they mean', () => {
    expect(queryAction('get rid of the old branches')).toBe(Action.Delete);
    expect(queryAction('set up a project for billing')).toBe(Action.Create);
    expect(queryAction('give me the page as markdown')).toBe(Action.Read);
  });

  it('tells opening something new from opening something there is', () => {
    expect(queryAction('open a pull request from my branch')).toBe(Action.Create);
    expect(queryAction('open the latest message')).toBe(Action.Read);
  });

  it('is null when the request opens with neither a question nor a verb', () => {
    expect(queryAction('phone number of that cafe')).toBeNull();
    expect(queryAction('please')).toBeNull();
  });
});

describe('agreement', () => {
  it('agrees with itself, and a wish to read with any way of reading', () => {
    expect(agreement(Action.Delete, Action.Delete)).toBe(Agreement.Same);
    expect(agreement(Action.Read, Action.List)).toBe(Agreement.Same);
  });

  it('is near between two ways of reading', () => {
    expect(agreement(Action.List, Action.Read)).toBe(Agreement.Near);
  });

  it('tolerates a related action and conflicts with the rest', () => {
    expect(agreement(Action.Create, Action.Send)).toBe(Agreement.Neutral);
    expect(agreement(Action.Update, Action.Create)).toBe(Agreement.Neutral);
    expect(agreement(Action.Read, Action.Delete)).toBe(Agreement.Conflict);
  });
});
