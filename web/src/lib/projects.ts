import { useEffect } from 'preact/hooks';
import { api } from './api.ts';
import { onLive } from './live.ts';
import { createStore, useStore } from './store.ts';
import type { Project } from '../../../src/work/api-contract.ts';
import { PROJECT_EVENTS } from './event-names.ts';

// Projects are few and named on many screens, so the page keeps one list, loaded once and kept
// current by the live stream.

const projects = createStore<Project[] | null>(null);
let inflight: Promise<Project[]> | null = null;

function publish(list: Project[]) {
  projects.set([...list].sort((a, b) => a.name.localeCompare(b.name)));
}

onLive((e) => {
  if (e.type === PROJECT_EVENTS.created || e.type === PROJECT_EVENTS.updated) upsertProject(e.data);
  if (e.type === 'resync' && projects.get()) loadProjects(true).catch(() => undefined);
});

export function loadProjects(force = false): Promise<Project[]> {
  const cache = projects.get();
  if (cache && !force) return Promise.resolve(cache);
  inflight ??= api<Project[]>('GET', '/projects')
    .then((r) => {
      publish(r.data);
      return r.data;
    })
    .finally(() => {
      inflight = null;
    });
  return inflight;
}

export function upsertProject(p: Project): void {
  // Before the first load a lone project would pass for the whole list.
  const cache = projects.get();
  if (cache === null) return;
  publish([...cache.filter((x) => x.id !== p.id), p]);
}

export function useProjects(): Project[] | null {
  const list = useStore(projects);
  useEffect(() => {
    loadProjects().catch(() => undefined);
  }, []);
  return list;
}

export function projectName(list: Project[] | null, id: string | null): string | null {
  if (id === null) return null;
  return list?.find((p) => p.id === id)?.name ?? null;
}
