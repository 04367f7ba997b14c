/** Drawing circuits: an SVG picture for pages and a text diagram for the terminal (see README). */
export { circuitSvg, type SvgOptions } from './svg.ts';
export { circuitText } from './text.ts';
export { formatParam, layoutCircuit, type Layout, type Part, type Placed } from './layout.ts';
