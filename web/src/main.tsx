import './boot.ts';
import { render } from 'preact';
import { App } from './app.tsx';
import './styles.css';
import './conversation.css';
import './webhooks.css';

render(<App />, document.getElementById('app')!);
