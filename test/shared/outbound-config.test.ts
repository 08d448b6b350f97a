import { describe, expect, it } from 'vitest';
import { createHostGuard } from '../../src/intake/host-guard.js';
import { loadConfig } from '../../src/shared/config/config.js';
import { checkOutboundUrl } from '../../src/shared/net/outbound-post.js';
import { buildAllowList, checkBaseUrl } from '../../src/shared/net/ssrf.js';

// One allow-list for every outbound connection: OUTBOUND_ALLOWED_HOSTS, with the older names
// still read and joined, and every guard reading it the same way.

const allowed = (env: Record<string, string>) => loadConfig(env).outbound.allowedHosts;

describe('OUTBOUND_ALLOWED_HOSTS', () => {
  it('joins the older INTAKE_ALLOWED_HOSTS and LLM_ALLOWED_HOSTS into the one list, each entry once', () => {
    expect(allowed({})).toEqual([]);
    expect(allowed({ OUTBOUND_ALLOWED_HOSTS: 'Hooks.Corp.example, 10.0.0.0/8' })).toEqual([
      'hooks.corp.example',
      '10.0.0.0/8',
    ]);
    expect(allowed({ INTAKE_ALLOWED_HOSTS: 'mail.corp.example' })).toEqual(['mail.corp.example']);
    expect(allowed({ LLM_ALLOWED_HOSTS: 'localhost' })).toEqual(['localhost']);
    expect(
      allowed({
        OUTBOUND_ALLOWED_HOSTS: '[::1], hooks.corp.example',
        INTAKE_ALLOWED_HOSTS: 'mail.corp.example,hooks.corp.example',
        LLM_ALLOWED_HOSTS: '127.0.0.1',
      }),
    ).toEqual(['::1', 'hooks.corp.example', 'mail.corp.example', '127.0.0.1']);
  });

  it('names the variable a wrong entry came from', () => {
    for (const name of ['OUTBOUND_ALLOWED_HOSTS', 'INTAKE_ALLOWED_HOSTS', 'LLM_ALLOWED_HOSTS']) {
      expect(() => loadConfig({ [name]: 'ok.example, 10.0.0.0/33' }), name).toThrow(
        new RegExp(`${name}.*10\\.0\\.0\\.0/33`),
      );
    }
  });

  it('lets an entry under an older name open every kind of outbound connection', async () => {
    const resolve = async (host: string) => (host === 'llm.corp.example' ? ['10.1.2.3'] : []);
    const envs: Record<string, string>[] = [
      { INTAKE_ALLOWED_HOSTS: 'llm.corp.example' },
      { LLM_ALLOWED_HOSTS: '10.0.0.0/8' },
    ];
    for (const env of envs) {
      const hosts = allowed(env);
      await expect(checkBaseUrl('http://llm.corp.example/v1', buildAllowList(hosts), resolve)).resolves.toBeInstanceOf(
        URL,
      );
      await expect(createHostGuard(hosts, resolve).check('llm.corp.example')).resolves.toBeUndefined();
      await expect(
        checkOutboundUrl('http://llm.corp.example/hook', { allowedHosts: hosts, resolve }),
      ).resolves.toBeInstanceOf(URL);
    }
  });

  it('refuses link-local and metadata addresses in every guard even when they are listed', async () => {
    const hosts = allowed({ OUTBOUND_ALLOWED_HOSTS: '169.254.0.0/16, 169.254.169.254, fd00:ec2::254' });
    const resolve = async () => [] as string[];
    for (const host of ['169.254.169.254', 'fd00:ec2::254']) {
      const url = `http://${host.includes(':') ? `[${host}]` : host}/`;
      await expect(checkBaseUrl(url, buildAllowList(hosts), resolve), host).rejects.toThrow(/not allowed/);
      await expect(createHostGuard(hosts, resolve).check(host), host).rejects.toThrow(/link-local/);
      await expect(checkOutboundUrl(url, { allowedHosts: hosts, resolve }), host).rejects.toThrow(/link-local/);
    }
  });

  it('names OUTBOUND_ALLOWED_HOSTS when it refuses a private address', async () => {
    const resolve = async () => ['10.1.2.3'];
    await expect(checkBaseUrl('http://intranet.example/', buildAllowList([]), resolve)).rejects.toThrow(
      /OUTBOUND_ALLOWED_HOSTS/,
    );
    await expect(createHostGuard([], resolve).check('intranet.example')).rejects.toThrow(/OUTBOUND_ALLOWED_HOSTS/);
    await expect(checkOutboundUrl('http://intranet.example/', { allowedHosts: [], resolve })).rejects.toThrow(
      /OUTBOUND_ALLOWED_HOSTS/,
    );
  });
});
