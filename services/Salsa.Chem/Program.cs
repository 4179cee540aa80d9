using Salsa.Chem;
using Salsa.Hosting.Host;

return await SalsaServiceHost.RunAsync<ChemService>(args);
