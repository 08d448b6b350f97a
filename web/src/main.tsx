import { render } from 'preact';
import { App } from './app.tsx';
import { startLive } from './lib/live.ts';
import './styles.css';

startLive();
render(<App />, document.getElementById('app')!);
