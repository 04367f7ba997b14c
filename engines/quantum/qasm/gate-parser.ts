/**
 * Gate definitions (`gate`, `opaque`) and gate calls with their modifier chains
 * (`ctrl(2) @ inv @ u(a) q, r;`). The modifier keywords are not reserved, so a word such as
 * `ctrl` is read as a modifier only when an `@` follows it (after its argument, if any).
 */
import type { Expr, Modifier, Ref, Stmt } from './ast.ts';
import { DeclParser } from './decl-parser.ts';
import { errorAt } from './errors.ts';
import type { Pos } from './errors.ts';

const MODIFIERS = new Set(['ctrl', 'negctrl', 'inv', 'pow']);

export abstract class GateParser extends DeclParser {
  /** A gate body is a list of statements, parsed by the full statement grammar. */
  abstract statement(): Stmt;

  /** Whether the next token starts a modifier (`pow(2) @`, `inv @`) rather than naming a gate. */
  protected atModifier(): boolean {
    if (!MODIFIERS.has(this.peek().text)) return false;
    if (this.is('@', 1)) return true;
    if (!this.is('(', 1)) return false;
    // `ctrl(2) @ x` is a modifier, `ctrl(a) q;` a call of a gate named ctrl: the `@` decides.
    const after = this.afterGroup('(', ')');
    return after >= 0 && this.is('@', after);
  }

  protected gateDef(word: 'gate' | 'opaque', pos: Pos): Stmt {
    this.next();
    const name = this.ident('a gate name').text;
    const params: string[] = [];
    if (this.accept('(')) {
      if (!this.is(')')) {
        do params.push(this.ident('a parameter name').text);
        while (this.accept(','));
      }
      this.expect(')');
    }
    const qubits: string[] = [];
    do qubits.push(this.ident('a qubit argument name').text);
    while (this.accept(','));
    if (word === 'opaque') {
      this.expect(';');
      return { k: 'opaque', name, params, qubits, pos };
    }
    this.expect('{', "'{' to start the gate body");
    const body: Stmt[] = [];
    while (!this.is('}')) {
      if (this.peek().kind === 'eof') throw errorAt(this.peek(), "expected '}' to end the gate body");
      body.push(this.statement());
    }
    this.next();
    return { k: 'gatedef', name, params, qubits, body, pos };
  }

  protected gateCall(pos: Pos): Stmt {
    const mods: Modifier[] = [];
    while (this.atModifier()) {
      const m = this.next();
      const mpos = { line: m.line, column: m.column };
      let arg: Expr | undefined;
      if (this.accept('(')) {
        arg = this.expr();
        this.expect(')');
      }
      this.expect('@');
      if (m.text === 'inv') {
        if (arg) throw errorAt(m, "'inv' takes no argument");
        mods.push({ k: 'inv', pos: mpos });
      } else if (m.text === 'pow') {
        if (!arg) throw errorAt(m, "expected '(' and an exponent after 'pow'");
        mods.push({ k: 'pow', e: arg, pos: mpos });
      } else mods.push({ k: m.text as 'ctrl' | 'negctrl', n: arg, pos: mpos });
    }
    const nameTok = this.ident('a gate name');
    const params: Expr[] = [];
    if (this.accept('(')) {
      if (!this.is(')')) {
        do params.push(this.expr());
        while (this.accept(','));
      }
      this.expect(')');
    }
    const args: Ref[] = [];
    if (!this.is(';')) {
      do args.push(this.ref());
      while (this.accept(','));
    }
    this.expect(';', "';' after the gate's qubit arguments");
    return { k: 'call', name: nameTok.text, mods, params, args, pos };
  }
}
