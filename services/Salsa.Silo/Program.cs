using Salsa.Cluster;
using Salsa.Hosting;
using Salsa.Silo;

var builder = WebApplication.CreateBuilder(args);
builder.AddServiceDefaults("silo");
builder.AddStore();
builder.AddSalsaSilo(SiloHosting.ReadSettings(builder.Configuration));

var app = builder.Build();
app.MapDefaultEndpoints();
app.MapClusterApi();
await app.RunAsync();
