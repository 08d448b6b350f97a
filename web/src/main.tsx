import './boot.ts';
import { render } from 'preact';
import { App } from './app.tsx';
import './styles.css';
import './conversation.css';

render(<App />, document.getElementById('app')!);
