// Prints a fake invoice number for the file given as the first argument.
const file = process.argv[2] ?? "(none)";
console.log(`invoice INV-0042 from ${file}`);
