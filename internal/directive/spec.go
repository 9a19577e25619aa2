package directive

import "slices"

// A Kind is the kind of value a key takes.
type Kind int

// The kinds of value.
const (
	Text         Kind = iota // any value
	Flag                     // no value, or true or false
	Identifier               // a Go identifier
	FuncName                 // a Go identifier, or pkg.Ident
	Operation                // read, write, trigger, transform or explain
	EntityOp                 // a lower-case word: view, update, delete...
	DataType                 // a data type name or entity:ID
	Count                    // MIN..MAX of non-negative integers
	NumRange                 // MIN..MAX of numbers
	Choice                   // a|b|c
	Members                  // a member selection
	OneOf                    // one of the key's Values
	ListOf                   // one or more of the key's Values, separated by ","
	Duration                 // a positive Go duration: 90s, 30m, 24h
	ImageAddress             // an https: or data:image/ address
	HeaderName               // an HTTP header name (an RFC 9110 token)
	GroupNames               // names of lowercase letters, digits, - and _, separated by ","
	FlagOrMethod             // no value, true or false, or a Go identifier
	BudgetSize               // a positive number of bytes (N) or of items (Nitems)
)

var kindNames = [...]string{
	Text: "text", Flag: "flag", Identifier: "identifier", FuncName: "function name", Operation: "operation",
	EntityOp: "entity operation", DataType: "data type", Count: "count bounds",
	NumRange: "number range", Choice: "choice", Members: "members",
	OneOf: "one of", ListOf: "list of", Duration: "duration", ImageAddress: "image address",
	HeaderName: "header name", GroupNames: "group names", FlagOrMethod: "flag or method",
	BudgetSize: "budget",
}

func (k Kind) String() string { return kindNames[k] }

// A Key describes one key a directive accepts.
type Key struct {
	Kind Kind
	// List keys may repeat; each repetition appends.
	List bool
	// Required keys must be given.
	Required bool
	// Values lists the values a OneOf or ListOf key accepts.
	Values []string
}

// ArgRule says whether a directive takes its NAME argument.
type ArgRule int

// The argument rules.
const (
	NoArg ArgRule = iota
	RequiredArg
	OptionalArg
)

// A Spec describes one directive: its argument and its keys.
type Spec struct {
	Name string
	Arg  ArgRule
	// ArgList says the argument is a comma-separated list (entitytype).
	ArgList bool
	Keys    map[string]Key
}

func keys(base map[string]Key, add map[string]Key, drop ...string) map[string]Key {
	m := make(map[string]Key, len(base)+len(add))
	for k, v := range base {
		if !slices.Contains(drop, k) {
			m[k] = v
		}
	}
	for k, v := range add {
		m[k] = v
	}
	return m
}

var inputKeys = map[string]Key{
	"description": {Kind: Text},
	"label":       {Kind: Text},
	"type":        {Kind: DataType},
	"example":     {Kind: Text, List: true},
	"default":     {Kind: Text},
	"notblank":    {Kind: Flag},
	"notnull":     {Kind: Flag},
	"count":       {Kind: Count},
	"length":      {Kind: Count},
	"range":       {Kind: NumRange},
	"choice":      {Kind: Choice},
	"labels":      {Kind: Choice},
	"pattern":     {Kind: Text},
	"media":       {Kind: Text},
	"dateonly":    {Kind: Flag},
	"locked":      {Kind: Flag},
	"sensitive":   {Kind: Flag},
	"config":      {Kind: Text},
	"definition":  {Kind: FuncName},
	"header":      {Kind: HeaderName},
}

// Specs holds every directive by name.
var Specs = map[string]*Spec{
	"method": {Name: "method", Arg: NoArg, Keys: map[string]Key{
		"id":          {Kind: Text, Required: true},
		"label":       {Kind: Text},
		"description": {Kind: Text},
		"op":          {Kind: Operation},
		"destructive": {Kind: Flag},
		"permission":  {Kind: Text},
		"approver":    {Kind: Text},
		"access":      {Kind: Identifier},
		"refine":      {Kind: Identifier},
		"confirm":     {Kind: FlagOrMethod},
		"deprecated":  {Kind: Text},
		"budget":      {Kind: BudgetSize, List: true},
		"task":        {Kind: OneOf, Values: TaskModes},
		"taskttl":     {Kind: Duration},
		"icon":        {Kind: ImageAddress},
		"needs":       {Kind: ListOf, Values: ClientNeeds},
		"group":       {Kind: GroupNames},
	}},
	"input": {Name: "input", Arg: RequiredArg, Keys: inputKeys},
	"entity": {Name: "entity", Arg: RequiredArg, Keys: keys(inputKeys, map[string]Key{
		"op":       {Kind: EntityOp, Required: true},
		"optional": {Kind: Flag},
	}, "config", "header")},
	"output": {Name: "output", Arg: OptionalArg, Keys: map[string]Key{
		"name":        {Kind: Text},
		"description": {Kind: Text},
		"label":       {Kind: Text},
		"type":        {Kind: DataType},
		"multiple":    {Kind: Flag},
		"example":     {Kind: Text, List: true},
		"media":       {Kind: Text},
		"config":      {Kind: Text},
		"nullable":    {Kind: Flag},
		"members":     {Kind: Members},
		"definition":  {Kind: FuncName},
	}},
	"property":   {Name: "property", Arg: NoArg, Keys: propertyKeys},
	"entitytype": {Name: "entitytype", Arg: RequiredArg, ArgList: true, Keys: map[string]Key{}},
	"config":     {Name: "config", Arg: RequiredArg, Keys: map[string]Key{}},
}

var propertyKeys = map[string]Key{
	"description": {Kind: Text},
	"name":        {Kind: Text},
	"label":       {Kind: Text},
	"type":        {Kind: DataType},
	"media":       {Kind: Text},
	"example":     {Kind: Text, List: true},
	"choice":      {Kind: Choice},
	"omitnull":    {Kind: Flag},
}

// Operations lists the values of method's op key.
var Operations = []string{"read", "write", "trigger", "transform", "explain"}

// TaskModes lists the values of method's task key.
var TaskModes = []string{"optional", "required"}

// Budget limits: the most bytes and items a budget key takes.
const (
	MaxBudgetBytes = 100_000_000
	MaxBudgetItems = 100_000
)

// ClientNeeds lists the values of method's needs key.
var ClientNeeds = []string{"sampling", "logging"}

// Names returns the directive names, sorted.
func Names() []string {
	var names []string
	for n := range Specs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
