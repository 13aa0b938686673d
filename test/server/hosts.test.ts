/** The Host allow-list on its own: bound address, wildcard binds, default port, configured names. */
import { describe, expect, it } from 'vitest';
import { parseHostEntry } from '../../src/config/server.js';
import { HostPolicy } from '../../src/server/hosts.js';

function policy(host: string, port: number, extra: string[] = []): HostPolicy {
  const p = new HostPolicy(extra);
  p.bind(host, port);
  return p;
}

describe('HostPolicy', () => {
  it('allows nothing before the socket is bound but the configured names', () => {
    const p = new HostPolicy(['tea.example.test']);
    expect(p.allows('127.0.0.1:8080')).toBe(false);
    expect(p.allows('tea.example.test')).toBe(true);
    expect(p.allows(undefined)).toBe(false);
  });

  it('on loopback: the three loopback names with the bound port only', () => {
    const p = policy('127.0.0.1', 8080);
    for (const ok of ['127.0.0.1:8080', 'localhost:8080', '[::1]:8080', 'LOCALHOST:8080'])
      expect(p.allows(ok), ok).toBe(true);
    for (const bad of ['127.0.0.1', 'localhost:80', '192.168.1.5:8080', 'localhost.:8080', '[::1]'])
      expect(p.allows(bad), bad).toBe(false);
    expect(p.describe()).toBe('127.0.0.1:8080, localhost:8080, [::1]:8080');
  });

  it('bound elsewhere: that address too (IPv6 in brackets)', () => {
    expect(policy('192.168.1.5', 9000).allows('192.168.1.5:9000')).toBe(true);
    expect(policy('192.168.1.5', 9000).allows('192.168.1.6:9000')).toBe(false);
    const v6 = policy('fe80::1', 9000);
    expect(v6.allows('[fe80::1]:9000')).toBe(true);
    expect(v6.describe()).toContain('[fe80::1]:9000');
  });

  it('bound to every address: any IP literal with the port, never a DNS name', () => {
    const p = policy('0.0.0.0', 9000);
    expect(p.allows('10.1.2.3:9000')).toBe(true);
    expect(p.allows('[2001:db8::7]:9000')).toBe(true);
    expect(p.allows('10.1.2.3:9001')).toBe(false);
    expect(p.allows('my-box.local:9000')).toBe(false);
    expect(p.allows('10.1.2.3.evil.example:9000')).toBe(false);
    expect(policy('::', 9000).allows('10.1.2.3:9000')).toBe(true);
  });

  it('on port 80 a bare name is ours (browsers leave the default port out)', () => {
    expect(policy('127.0.0.1', 80).allows('localhost')).toBe(true);
    expect(policy('127.0.0.1', 8080).allows('localhost')).toBe(false);
  });

  it('configured names: any port, or only the one given', () => {
    const p = policy('127.0.0.1', 8080, ['Tea.Example.Test', 'box.local:8443']);
    expect(p.allows('tea.example.test:8080')).toBe(true);
    expect(p.allows('tea.example.test:443')).toBe(true);
    expect(p.allows('box.local:8443')).toBe(true);
    expect(p.allows('box.local:8080')).toBe(false);
    expect(p.allows('evil.tea.example.test:8080')).toBe(false);
    expect(() => new HostPolicy(['http://tea.example.test'])).toThrow(/not a host name/);
  });
});

describe('parseHostEntry', () => {
  it.each([
    ['tea.example.test', { name: 'tea.example.test' }],
    ['Box.Local:8443', { name: 'box.local', port: 8443 }],
    ['10.0.0.2', { name: '10.0.0.2' }],
    ['[::1]:8080', { name: '[::1]', port: 8080 }],
  ])('reads %s', (text, entry) => {
    expect(parseHostEntry(text)).toEqual(entry);
  });

  it.each([
    'http://tea.example.test',
    'tea.example.test/',
    'tea.example.test.',
    '*.example.test',
    '::1',
    'box.local:0',
    'box.local:08443',
    'box.local:70000',
    '',
    '-bad.example',
  ])('refuses %j', (text) => {
    expect(parseHostEntry(text)).toBeUndefined();
  });
});
