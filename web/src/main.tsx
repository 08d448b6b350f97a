import { render } from 'preact';
import { App } from './app.tsx';
import { loadSession } from './lib/session.ts';
import { prefetchDashboard } from './pages/dashboard.tsx';
import './styles.css';

// Who we are and, on a fresh visit (which lands on the dashboard, app.tsx), the dashboard's
// numbers are asked for with the script's first run, side by side, not one after the other.
void loadSession();
if (location.hash === '' || location.hash === '#' || location.hash.startsWith('#/dashboard')) prefetchDashboard();

render(<App />, document.getElementById('app')!);
