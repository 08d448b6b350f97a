import { loadSession } from './lib/session.ts';
import { DASHBOARD_STATS_PATH, prefetch } from './lib/prefetch.ts';

// The first of main.tsx's imports, so it runs before the rest of the bundle is evaluated: who
// we are and, on a fresh visit (which lands on the dashboard, app.tsx), the dashboard's numbers
// are asked for at once, side by side, while the pages' code is still being set up.
void loadSession();
if (location.hash === '' || location.hash === '#' || location.hash.startsWith('#/dashboard'))
  prefetch(DASHBOARD_STATS_PATH);
