// The chat page's behaviour on top of the server-rendered HTML: sign in and out and the API
// calls (the shared console script), the model picker, sending a message and showing the reply
// as it streams in, the stop button, the day's remaining messages. A plain ES module, no
// libraries, no inline code (the CSP).
import { api, ApiError, base, request, wireSession } from './shared/console.js';

wireSession({ login: '/api/auth/login', logout: '/api/auth/logout', after: `${base}/` });

const app = document.querySelector('.app');
if (app) chat(app);

/** The signed-in page: `app` is its root, `data-conversation` the open conversation (empty for a new chat). */
function chat(app) {
  const $ = (id) => document.getElementById(id);
  let conversationId = app.dataset.conversation || null;
  const messages = $('messages');
  const input = $('message');
  const composer = $('composer');
  const send = $('send');
  const stop = $('stop');
  const picker = $('model');
  const notice = $('notice');
  let running = null; // the AbortController of the reply being streamed

  function showNotice(text) {
    notice.textContent = text;
    notice.hidden = !text;
  }

  function scrollDown() {
    messages.scrollTop = messages.scrollHeight;
  }

  // Phones: the conversation list starts folded so the chat gets the screen.
  if (window.matchMedia('(max-width: 720px)').matches) $('conversations').open = false;
  scrollDown();

  // ---- model picker ----
  function describeModel() {
    const option = picker.selectedOptions[0];
    $('model-summary').textContent = option.dataset.summary;
    let pro = $('model-pro');
    if (option.dataset.pro === 'yes' && !pro) {
      pro = document.createElement('span');
      pro.id = 'model-pro';
      pro.className = 'tag';
      pro.textContent = 'pro';
      $('model-info').append(' ', pro);
    } else if (option.dataset.pro !== 'yes' && pro) pro.remove();
    $('model-info').title = option.dataset.description;
    // The built-in smoke-test model's notice follows the picked slot.
    $('builtin-notice').hidden = option.dataset.builtin !== 'yes';
    $('builtin-slot').textContent = option.value;
  }
  describeModel();
  picker.addEventListener('change', async () => {
    describeModel();
    if (!conversationId) return;
    await api('PATCH', `/api/conversations/${encodeURIComponent(conversationId)}`, { model: picker.value }).catch((err) => showNotice(err.message));
  });

  // ---- remaining messages ----
  function showUsage(usage) {
    if (!usage) return;
    if (usage.messages.remaining === 0 && notice.hidden) {
      showNotice(`You have used all ${usage.messages.limit} messages for today; they start again at 00:00 UTC.`);
    }
    $('remaining-messages').textContent = String(usage.messages.remaining);
    $('remaining-pro').textContent = String(usage.proMessages.remaining);
  }

  // ---- messages ----
  function bubble(role, who, text) {
    const empty = $('empty');
    if (empty) empty.remove();
    const article = document.createElement('article');
    article.className = `message ${role}`;
    article.dataset.status = role === 'user' ? 'complete' : 'streaming';
    const head = document.createElement('div');
    head.className = 'who';
    head.textContent = who;
    const content = document.createElement('div');
    content.className = 'content';
    content.textContent = text;
    article.append(head, content);
    messages.append(article);
    scrollDown();
    return article;
  }

  function mark(article, status, error) {
    article.dataset.status = status;
    if (status === 'stopped' || status === 'failed') {
      const tag = document.createElement('span');
      tag.className = status === 'failed' ? 'tag error' : 'tag';
      tag.textContent = status;
      article.querySelector('.who').append(' ', tag);
    }
    if (error) {
      const failure = document.createElement('div');
      failure.className = 'failure';
      failure.textContent = error;
      article.append(failure);
    }
  }

  function addToList(conversation) {
    const none = $('no-conversations');
    if (none) none.remove();
    const list = $('conversation-list');
    for (const a of list.querySelectorAll('a[aria-current]')) a.removeAttribute('aria-current');
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `${base}/?c=${encodeURIComponent(conversation.id)}`;
    a.dataset.id = conversation.id;
    a.textContent = conversation.title;
    a.setAttribute('aria-current', 'page');
    li.append(a);
    list.prepend(li);
  }

  function retitle(id, title) {
    const a = document.querySelector(`#conversation-list a[data-id="${CSS.escape(id)}"]`);
    if (a) a.textContent = title;
    document.title = `${title} · Lattice Chat`;
  }

  // Reads `event:`/`data:` frames of a text/event-stream body and calls onEvent(name, data).
  async function readEvents(res, onEvent) {
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let name = 'message';
        let data = '';
        for (const line of frame.split('\n')) {
          if (line.startsWith('event: ')) name = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (data) onEvent(name, JSON.parse(data));
      }
    }
  }

  function setRunning(controller) {
    running = controller;
    send.hidden = !!controller;
    stop.hidden = !controller;
    input.readOnly = !!controller;
    if (!controller) input.focus();
  }

  async function sendMessage(text) {
    showNotice('');
    const controller = new AbortController();
    setRunning(controller);
    const modelName = picker.selectedOptions[0].dataset.name;
    let userBubble = null;
    let replyBubble = null;
    try {
      if (!conversationId) {
        const conversation = await api('POST', '/api/conversations', { model: picker.value }, { signal: controller.signal });
        conversationId = conversation.id;
        app.dataset.conversation = conversationId;
        history.replaceState(null, '', `${base}/?c=${encodeURIComponent(conversationId)}`);
        addToList(conversation);
      }
      userBubble = bubble('user', 'You', text);
      replyBubble = bubble('assistant', modelName, '');
      const path = `/api/conversations/${encodeURIComponent(conversationId)}/messages`;
      const res = await request('POST', path, { content: text, stream: true }, { signal: controller.signal }).catch((err) => {
        if (err instanceof ApiError) {
          // Refused before anything ran (a daily limit, a bad message): nothing was stored.
          userBubble.remove();
          replyBubble.remove();
          input.value = text;
        }
        throw err;
      });
      const content = replyBubble.querySelector('.content');
      await readEvents(res, (name, data) => {
        if (name === 'start') {
          showUsage(data.usage);
          retitle(conversationId, data.conversation.title);
        } else if (name === 'delta') {
          content.textContent += data.content;
          scrollDown();
        } else if (name === 'done') {
          content.textContent = data.message.content;
          mark(replyBubble, data.message.status);
          showUsage(data.usage);
        } else if (name === 'error') {
          mark(replyBubble, 'failed', data.error.message);
          showUsage(data.usage);
        }
      });
    } catch (err) {
      if (controller.signal.aborted) {
        if (replyBubble) mark(replyBubble, 'stopped');
      } else {
        showNotice(err instanceof Error ? err.message : String(err));
      }
    } finally {
      setRunning(null);
    }
  }

  composer.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input.value;
    if (!text.trim() || running) return;
    input.value = '';
    sendMessage(text);
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      composer.requestSubmit();
    }
  });
  stop.addEventListener('click', () => {
    if (running) running.abort();
  });
}
