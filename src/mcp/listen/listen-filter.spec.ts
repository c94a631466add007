import { honouredFilter, MAX_TASK_IDS } from './listen-filter';
import { MAX_SEALED_CHARS } from '../tasks/task-id-seal';

describe('honouredFilter', () => {
  it('keeps the first MAX_TASK_IDS distinct task ids, and only strings of a task id length', () => {
    const ids = Array.from({ length: MAX_TASK_IDS + 5 }, (_, i) => `pt1.${i}`);
    const filter = honouredFilter({
      taskIds: ['pt1.0', 7, '', 'x'.repeat(MAX_SEALED_CHARS + 1), ...ids],
    });
    expect(filter.taskIds).toEqual(ids.slice(0, MAX_TASK_IDS));
  });

  it('leaves task ids out when none is usable, or when they are not a list', () => {
    expect(honouredFilter({ taskIds: [1, null, ''] })).toEqual({});
    expect(honouredFilter({ taskIds: 'pt1.a', toolsListChanged: true })).toEqual({
      toolsListChanged: true,
    });
  });
});
