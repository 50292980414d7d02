DESCRIBE power.meters;
