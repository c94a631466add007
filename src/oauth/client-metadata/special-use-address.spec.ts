import { isFetchableAddress } from './special-use-address';

describe('isFetchableAddress', () => {
  it.each([
    '8.8.8.8',
    '93.184.215.14',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '2606:4700::1111',
    '2001:4860:4860::8888',
    '[2a00:1450:4001::200e]',
  ])('takes the globally reachable %s', (address) => {
    expect(isFetchableAddress(address, false)).toBe(true);
  });

  it.each([
    '0.0.0.0',
    '10.0.0.1',
    '100.64.0.1',
    '127.0.0.1',
    '127.8.9.10',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '192.168.1.1',
    '198.18.0.1',
    '198.51.100.7',
    '203.0.113.9',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '[::1]',
    '::ffff:8.8.8.8',
    '::ffff:10.0.0.1',
    '64:ff9b::808:808',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    '2001:db8::1',
    '2001::1',
    '2002:c0a8:101::1',
    'example.com',
    '',
  ])('refuses the special-use (or not an address) %s', (address) => {
    expect(isFetchableAddress(address, false)).toBe(false);
  });

  it('takes loopback, and only loopback, when allowed', () => {
    expect(isFetchableAddress('127.0.0.1', true)).toBe(true);
    expect(isFetchableAddress('::1', true)).toBe(true);
    for (const address of ['10.0.0.1', '169.254.169.254', 'fd00::1', '192.168.0.1'])
      expect(isFetchableAddress(address, true)).toBe(false);
  });
});
