// The named functions of a TypeScript source and their lengths in lines: function declarations, methods,
// constructors, getters, and function or arrow expressions bound to a name (a variable or a property). Used by
// scripts/family-shape.mjs and test/shape.test.ts.
import ts from 'typescript';

/** @returns {{ name: string, file: string, lines: number }[]} */
export function functionsOf(path, text) {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const out = [];
  const visit = (node) => {
    let name;
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessor(node)) && node.body) {
      name = ts.isConstructorDeclaration(node) ? 'constructor' : (node.name?.getText(sf) ?? '(default)');
      const cls = node.parent && ts.isClassLike(node.parent) && node.parent.name ? `${node.parent.name.getText(sf)}.` : '';
      name = cls + name;
    } else if (
      (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) &&
      node.parent &&
      (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent))
    ) {
      name = node.parent.name.getText(sf);
    }
    if (name !== undefined) {
      const a = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const b = sf.getLineAndCharacterOfPosition(node.end).line;
      out.push({ name, file: path, lines: b - a + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}
