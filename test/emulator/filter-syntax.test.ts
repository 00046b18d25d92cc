// The filter language, token and clause level, against the cases of the platform's own Go library (kqlfilter.go:
// lexer_test.go, parser_test.go, filter_test.go), ported in meaning: every input they name, with the answer the
// library's `Parse` gives to it (checked by running the library), plus the forms issue 19 lists.
import { describe, expect, it } from 'vitest';
import { lex, type Token } from '../../src/emulator/filter-lex.js';
import { parseFilter } from '../../src/emulator/filter-parse.js';

/** A token as `kind:value`; word and quoted are one kind there, `string`, with escapes replaced. */
const shown = (t: Token) =>
  t.kind === 'word' || t.kind === 'quoted'
    ? `string:${t.value}`
    : t.text === t.kind || t.kind === 'eof'
      ? t.kind
      : `${t.kind}:${t.text}`;
/** Clauses as `[field, operator, ...values]`. */
const clauses = (input: string) => parseFilter(input).map((c) => [c.field, c.op, ...c.values]);

describe('lexer: the library lexer cases', () => {
  // prettier-ignore
  const lexerCases: [name: string, input: string, tokens: string[]][] = [
    ['empty input', '', []],
    ['white space', ' \n\t\r', ['space: \n\t\r']],
    ['simple filter', 'field: value*', ['string:field', ':', 'space: ', 'string:value', '*']],
    ['number range', 'price>125.25', ['string:price', 'range:>', 'string:125.25']],
    ['number range 2', 'temp <=-20', ['string:temp', 'space: ', 'range:<=', 'string:-20']],
    ['number range 3', 'temp <-20', ['string:temp', 'space: ', 'range:<', 'string:-20']],
    ['array is contained by other array', 'array_field <@(20 AND 30)',
      ['string:array_field', 'space: ', 'contain:<@', '(', 'string:20', 'space: ', 'and:AND', 'space: ', 'string:30', ')']],
    ['array contains another array', 'array_field >@(20 AND 30)',
      ['string:array_field', 'space: ', 'contain:>@', '(', 'string:20', 'space: ', 'and:AND', 'space: ', 'string:30', ')']],
    ['quoted filter', 'field: "value two"*', ['string:field', ':', 'space: ', 'string:"value two"', '*']],
    ['quoted escape filter', 'field: "value \\" two"', ['string:field', ':', 'space: ', 'string:"value " two"']],
    ['unicode filter', 'field: "Lūgēte, ō Venerēs Cupīdinēsque"', ['string:field', ':', 'space: ', 'string:"Lūgēte, ō Venerēs Cupīdinēsque"']],
    ['unicode filter 2', 'field:Lūgēte', ['string:field', ':', 'string:Lūgēte']],
    ['escapes', 'field\\(x\\):separated\\:value', ['string:field(x)', ':', 'string:separated:value']],
    ['parenthesis', 'field: (one  OR two)', ['string:field', ':', 'space: ', '(', 'string:one', 'space:  ', 'or:OR', 'space: ', 'string:two', ')']],
    ['braces', 'field: {nested:{ field:"value"}}',
      ['string:field', ':', 'space: ', '{', 'string:nested', ':', '{', 'space: ', 'string:field', ':', 'string:"value"', '}', '}']],
    ['dotted', 'some.nested.field:value', ['string:some.nested.field', ':', 'string:value']],
    ['bad number', 'field: -23d', ['string:field', ':', 'space: ', 'string:-23d']],
    ['or values', 'field:(x OR y AND z)',
      ['string:field', ':', '(', 'string:x', 'space: ', 'or:OR', 'space: ', 'string:y', 'space: ', 'and:AND', 'space: ', 'string:z', ')']],
    ['syntax that includes percentage and wildcard', 'discount_string:70%*', ['string:discount_string', ':', 'string:70%', '*']],
    ['bool', 'suspended: true', ['string:suspended', ':', 'space: ', 'bool:true']],
    ['multivalue bool', 'suspended: (true OR false)', ['string:suspended', ':', 'space: ', '(', 'bool:true', 'space: ', 'or:OR', 'space: ', 'bool:false', ')']],
    ['false bool without value', 'false', ['bool:false']],
  ];
  it.each(lexerCases)('%s: %j', (_name, input, expected) => {
    expect(lex(input).map(shown)).toEqual([...expected, 'eof']);
  });

  // prettier-ignore
  const lexerRefusals: [name: string, input: string, message: RegExp][] = [
    ['unclosed parenthesis', 'field: (', /unclosed "\(" at position 8/],
    ['unbalanced parenthesis', 'field: (one OR two))', /unexpected "\)" with nothing open to close at position 20/],
    ['unbalanced braces', 'field: {one:x}}', /unexpected "}" with nothing open to close at position 15/],
  ];
  it.each(lexerRefusals)('%s: %j is refused', (_name, input, message) => {
    expect(() => lex(input)).toThrow(message);
  });
});

describe('Parse: the library filter cases', () => {
  // prettier-ignore
  const parseCases: [name: string, input: string, clauses: string[][]][] = [
    ['empty', '  ', []],
    ['one field', 'field:value', [['field', '=', 'value']]],
    ['two fields', 'field:value another:second', [['field', '=', 'value'], ['another', '=', 'second']]],
    ['two fields with and', 'field:value and another:second', [['field', '=', 'value'], ['another', '=', 'second']]],
    ['or values are supported', 'field:(value OR second)', [['field', 'IN', 'value', 'second']]],
    ['contains operator', 'sport>@(soccer AND basketball)', [['sport', '>@', 'soccer', 'basketball']]],
    ['contained by operator', 'sport<@(soccer AND basketball)', [['sport', '<@', 'soccer', 'basketball']]],
    ['one field with range operator', 'field>=value', [['field', '>=', 'value']]],
    ['one field with not operator', 'not field:value', [['field', '!=', 'value']]],
    ['one field with not operator and an empty value', 'not field:""', [['field', '!=', '']]],
    ['one field with not operator and an unrelated equality clause', 'not field:value and another:second',
      [['field', '!=', 'value'], ['another', '=', 'second']]],
    ['one field repeated to create a range', 'amount>=1 and amount<5', [['amount', '>=', '1'], ['amount', '<', '5']]],
    ['3 or more and in a sequence', 'a:1 and b:2 and c:3 and d:4 and e:6',
      [['a', '=', '1'], ['b', '=', '2'], ['c', '=', '3'], ['d', '=', '4'], ['e', '=', '6']]],
  ];
  it.each(parseCases)('%s: %j', (_name, input, expected) => {
    expect(clauses(input)).toEqual(expected);
  });

  // prettier-ignore
  const parseRefusals: [name: string, input: string, message: RegExp][] = [
    ['or is not supported', 'field:value OR another:second', /"or" between clauses .* at position 13/],
    ['negation applied to an and node', 'not (field:value and another:second)', /"not" applies to one field:value only at position 1/],
  ];
  it.each(parseRefusals)('%s: %j is refused', (_name, input, message) => {
    expect(() => parseFilter(input)).toThrow(message);
  });
});

describe('Parse on the library parser cases (the tree tests; here what Parse makes of each input)', () => {
  // prettier-ignore
  const treeCases: [name: string, input: string, clauses: string[][]][] = [
    ['simple filter', 'field:value', [['field', '=', 'value']]],
    ['quoted', 'field:"value"', [['field', '=', 'value']]],
    ['quoted 2', 'field:"value AND x"', [['field', '=', 'value AND x']]],
    ['quoted inside parentheses', 'field:value1 AND field2:("value2" OR "value3")', [['field', '=', 'value1'], ['field2', 'IN', 'value2', 'value3']]],
    ['boolean without value', 'false', [['1', '=', '0']]],
    ['wildcard', 'field:value*', [['field', '=', 'value*']]],
    ['wildcard prefix', 'field:*value', [['field', '=', '*value']]],
    ['multi filter', 'field:value second:filter', [['field', '=', 'value'], ['second', '=', 'filter']]],
    ['ranges', 'start_time >= "2022-02-02T10:30:00.000Z" start_time < "2022-02-03T10:30:00.000Z"',
      [['start_time', '>=', '2022-02-02T10:30:00.000Z'], ['start_time', '<', '2022-02-03T10:30:00.000Z']]],
    ['ranges3', 'start_time<"2022-02-03T10:30:00.000Z"', [['start_time', '<', '2022-02-03T10:30:00.000Z']]],
    ['isContained1', 'sports<@("soccer" AND "basketball" AND "handball")', [['sports', '<@', 'soccer', 'basketball', 'handball']]],
    ['isContained2', 'sports<@("soccer")', [['sports', '<@', 'soccer']]],
    ['contains', 'sports>@("soccer" AND "basketball" AND "handball")', [['sports', '>@', 'soccer', 'basketball', 'handball']]],
    ['escapes', 'field\\(x\\):separated\\:value', [['field(x)', '=', 'separated:value']]],
    ['escapes 2', 'field:slashed\\\\value', [['field', '=', 'slashed\\value']]],
    ['escapes 3', 'field:\\and', [['field', '=', 'and']]],
    ['syntax that includes percentage and wildcard', 'discount_string:70%*', [['discount_string', '=', '70%*']]],
    ['not syntax', 'not field:value', [['field', '!=', 'value']]],
    ['string with leading digit', 'state:PAYMENT_STATE_FAILED AND content_reference.id:2Ubp5JU6lfqmAWXi0I7fnl1z29y',
      [['state', '=', 'PAYMENT_STATE_FAILED'], ['content_reference.id', '=', '2Ubp5JU6lfqmAWXi0I7fnl1z29y']]],
    ['bool', 'suspended: true', [['suspended', '=', 'true']]],
    ['multivalue bool', 'suspended: (true OR false)', [['suspended', 'IN', 'true', 'false']]],
    ['3 or more AND in a sequence', 'a:1 and b:2 and c:3 and d:4 and e:6',
      [['a', '=', '1'], ['b', '=', '2'], ['c', '=', '3'], ['d', '=', '4'], ['e', '=', '6']]],
    ['list of values (refused only without complex expressions)', 'field:(x OR y OR z)', [['field', 'IN', 'x', 'y', 'z']]],
  ];
  it.each(treeCases)('%s: %j', (_name, input, expected) => {
    expect(clauses(input)).toEqual(expected);
  });

  // Trees ParseAST builds that are not a flat AND, and the inputs it refuses itself; Parse refuses all of them.
  // prettier-ignore
  const treeRefusals: [name: string, input: string, message: RegExp][] = [
    ['boolean OR', 'field:value OR second: filter', /"or" between clauses .* at position 13/],
    ['boolean mixed', 'first:x OR second:y AND third:z', /"or" between clauses .* at position 9/],
    ['boolean mixed 2', 'first:x OR second:y and NOT third:z', /"or" between clauses .* at position 9/],
    ['boolean mixed 3', '(first:x OR second:y) and NOT third:z', /"or" between clauses .* at position 10/],
    ['or values with and', 'field:(x OR y AND z)', /a value list may hold only values at position 15/],
    ['nested values', 'field:{nested:x or y:z}', /nested queries .* at position 7/],
    ['ranges2', 'start_time>"2022-02-02T10:30:00.000Z" OR start_time<="2022-02-03T10:30:00.000Z"', /"or" between clauses .* at position 39/],
    ['isContained3 (or)', 'sports<@("soccer" OR "basketball")', /expected "\)" to close a value list, found "OR" at position 19/],
    ['isContained4 (nesting)', 'sports<@("soccer" AND ("basketball" OR "handball"))', /expected a value, found "\(" at position 23/],
    ['isContained4 (not)', 'sports<@("soccer" AND NOT "basketball")', /unexpected "NOT" in a value .* at position 23/],
    ['invalid wildcard', 'value*', /expected a field name, found "\*" at position 6/],
    ['invalid parenthesis', 'field:(x OR y', /unclosed "\(" at position 7/],
    ['invalid syntax', 'field>(x OR y)', /expected a value, found "\(" at position 7/],
    ['invalid syntax 2', 'field :: value', /unexpected ":" in a value .* at position 8/],
    ['invalid syntax 3', 'field < :value', /unexpected ":" in a value .* at position 9/],
    ['invalid syntax 4', 'some:field AND OR another:field', /expected a field name, found "OR" at position 16/],
    ['invalid syntax 5', 'some:field,another:field', /unexpected ":" in a value .* at position 19/],
    ['not value', 'field:NOT value', /unexpected "NOT" in a value .* at position 7/],
    ['nesting error', `${'a:{b:{c:{d:{e:{f:{g:{h:{i:{j:{k:{l:{m:{n:{o:{p:{q:{r:{s:{t:{u:{v:{w:{x:{y:{z:1'}${'}'.repeat(25)}`, /nested too deep .* at position 6/],
    ['nesting (accepted by ParseAST, 19 deep)', `${'a:{b:{c:{d:{e:{f:{g:{h:{i:{j:{k:{l:{m:{n:{o:{p:{q:{r:{s:{t:1'}${'}'.repeat(19)}`, /nested too deep .* at position 6/],
    ['complexity error', 'field:(a OR b OR c OR d OR e OR f OR g OR h OR i OR j OR k OR l) OR field:(m OR n OR o OR p OR q OR r OR s OR t OR u OR v OR w OR x OR y OR z)',
      /"or" between clauses .* at position 66/],
    ['3 or more AND in a sequence + implicit AND', 'a:1 and b:2 and c:3 and d:4 e:6', /clauses joined by "and" cannot sit in a list .* at position 5/],
    ['3 or more OR in sequence', 'a:1 or b:2 or c:3 or d:4 or e:5', /"or" between clauses .* at position 5/],
    ['boolean 2 (simple parser)', 'field:value OR second:filter', /"or" between clauses .* at position 13/],
    ['nested (simple parser)', 'field:{nested:x}', /nested queries .* at position 7/],
  ];
  it.each(treeRefusals)('%s: %j is refused', (_name, input, message) => {
    expect(() => parseFilter(input)).toThrow(message);
  });
});
