import { loadConfig } from '../config/load-config';
import { ToolNameQuery } from './tool-name.query';
import { tempDataDir } from '../../test/support/temp-dir';

function query(separator?: string): ToolNameQuery {
  return new ToolNameQuery(
    loadConfig({
      DATA_DIR: tempDataDir(),
      ...(separator ? { GATEWAY_TOOL_NAME_SEPARATOR: separator } : {}),
    }),
  );
}

describe('ToolNameQuery', () => {
  it('joins slug and original name with the default separator', () => {
    expect(query().name('gateway-1', 'get_system_time')).toBe('gateway-1-get_system_time');
    expect(query().name('gateway-2', 'get_system_time')).toBe('gateway-2-get_system_time');
  });

  it('uses the configured separator', () => {
    expect(query('__').name('gateway-1', 'get_system_time')).toBe('gateway-1__get_system_time');
  });

  it('builds the SQL expression with the separator inlined, as the index has it', () => {
    expect(query().expression()).toBe(`("tool"."gateway_slug" || '-' || "tool"."original_name")`);
    expect(query('.').expression('other')).toBe(
      `("other"."gateway_slug" || '.' || "other"."original_name")`,
    );
  });

  it('gives the ambiguous pair the same name, which is why names are never split', () => {
    const names = query();
    expect(names.name('a', 'b-c')).toBe(names.name('a-b', 'c'));
  });
});
