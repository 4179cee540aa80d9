using Salsa.Testing;

[assembly: AssemblyFixture(typeof(PostgresFixture))]
