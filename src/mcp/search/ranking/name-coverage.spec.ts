import { NameIndex, nameTerms } from './name-coverage';
import { TimeSlicer } from '../../../common/time-slicer';

const build = (names: string[]) => NameIndex.build(names.map(nameTerms), new TimeSlicer(Infinity));

describe('nameTerms', () => {
  it('gives the distinct stemmed terms of a name in any identifier style', () => {
    expect(nameTerms('list_channels')).toEqual(['list', 'channel']);
    expect(nameTerms('getChannelHistory')).toEqual(['channel', 'histori']);
    expect(nameTerms('slack_slack_post')).toEqual(['slack', 'post']);
  });
});

describe('NameIndex', () => {
  it('scores the share of each name the query reaches', async () => {
    const index = await build(['list_channels', 'get_channel_history', 'post_message']);
    const { scores, touched } = index.coverage('which channels are there', 0);
    expect([...scores]).toEqual([0.5, 0.5, 0]);
    expect([...touched].sort()).toEqual([0, 1]);
  });

  it('counts a synonym at its weight, and each name term once', async () => {
    const index = await build(['create_directory', 'list_directory']);
    const { scores } = index.coverage('make a folder, a new folder', 0.5);
    expect(scores[0]).toBeCloseTo(0.5);
    expect(scores[1]).toBeCloseTo(0.25);
  });

  it('forgets the previous query', async () => {
    const index = await build(['list_channels', 'post_message']);
    index.coverage('channels', 0);
    expect([...index.coverage('post', 0).scores]).toEqual([0, 0.5]);
  });
});
