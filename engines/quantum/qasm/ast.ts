/** Syntax tree of the OpenQASM 2/3 subset the parser accepts (see engines/quantum/README.md). */
import type { Pos } from './errors.ts';

export type Expr =
  | { k: 'num'; value: number; isInt: boolean; pos: Pos }
  | { k: 'ref'; ref: Ref; pos: Pos }
  | { k: 'bin'; op: string; a: Expr; b: Expr; pos: Pos }
  | { k: 'un'; op: string; a: Expr; pos: Pos }
  | { k: 'call'; fn: string; args: Expr[]; pos: Pos };

/** One index item: a single expression, a range `[start:step:stop]` (inclusive) or a set `{a, b}`. */
export type IndexItem =
  | { k: 'expr'; e: Expr }
  | { k: 'range'; start?: Expr; step?: Expr; stop?: Expr }
  | { k: 'set'; items: Expr[] };

/** A name with an optional index, e.g. `q`, `q[0]`, `q[0:2]`. */
export interface Ref {
  name: string;
  index?: IndexItem;
  pos: Pos;
}

export type Modifier =
  | { k: 'ctrl' | 'negctrl'; n?: Expr; pos: Pos }
  | { k: 'inv'; pos: Pos }
  | { k: 'pow'; e: Expr; pos: Pos };

export type Stmt =
  | { k: 'include'; path: string; pos: Pos }
  | { k: 'qdecl'; name: string; size?: Expr; pos: Pos }
  | { k: 'cdecl'; name: string; size?: Expr; init?: Ref; pos: Pos }
  | { k: 'vdecl'; name: string; type: string; isConst: boolean; isInput: boolean; init?: Expr; pos: Pos }
  | { k: 'gatedef'; name: string; params: string[]; qubits: string[]; body: Stmt[]; pos: Pos }
  | { k: 'opaque'; name: string; params: string[]; qubits: string[]; pos: Pos }
  | { k: 'call'; name: string; mods: Modifier[]; params: Expr[]; args: Ref[]; pos: Pos }
  | { k: 'measure'; src: Ref; dst?: Ref; pos: Pos }
  | { k: 'reset'; target: Ref; pos: Pos }
  | { k: 'barrier'; targets: Ref[]; pos: Pos }
  | { k: 'if'; cond: Expr; then: Stmt[]; else?: Stmt[]; pos: Pos }
  | { k: 'for'; name: string; iter: IndexItem; body: Stmt[]; pos: Pos }
  | { k: 'assign'; target: Ref; op: string; value: Expr; pos: Pos };

export interface Program {
  version: 2 | 3;
  body: Stmt[];
}
